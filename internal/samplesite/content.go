package samplesite

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
)

//go:embed content/en/*.txt content/zh/*.txt
var contentFS embed.FS

// article is one embedded text: a title and its paragraphs.
type article struct {
	Lang  string // "en" or "zh"
	Slug  string // file name without .txt
	Title string
	Paras []string
}

// loadArticle reads content/LANG/SLUG.txt: the title on the first line,
// then paragraphs separated by blank lines. It panics if the file is
// missing, since the set of files is fixed at build time.
func loadArticle(lang, slug string) article {
	data, err := contentFS.ReadFile("content/" + lang + "/" + slug + ".txt")
	if err != nil {
		panic(fmt.Sprintf("samplesite: embedded article %s/%s: %v", lang, slug, err))
	}
	blocks := strings.Split(strings.TrimSpace(string(data)), "\n\n")
	a := article{Lang: lang, Slug: slug, Title: strings.TrimSpace(blocks[0])}
	for _, b := range blocks[1:] {
		if b = strings.TrimSpace(b); b != "" {
			a.Paras = append(a.Paras, b)
		}
	}
	return a
}

// The articles, in the order the home page lists them. The first two of
// each language also appear syndicated, the third mirrored with a few words
// changed, the fourth under an old URL that redirects.
var (
	enMain = []string{"what-is-debian", "debian-and-other-distributions", "knoppix-mint-ubuntu",
		"hardware-architectures", "release-code-names", "how-debian-boots",
		"what-is-a-debian-package", "keeping-debian-current"}
	zhMain = []string{"applications-and-tools", "build-environment", "foreign-packages",
		"maintainer-scripts", "online-resources", "package-file-names",
		"package-relations", "removing-data-packages"}
	// enIntro are served as /intro/1.. /intro/4, all titled "Introduction".
	enIntro   = []string{"intro-control-file", "intro-priorities", "intro-system-v-init", "intro-documentation"}
	enSlow    = "alternatives"         // served at /slow
	enPrivate = "testing-distribution" // served at /private/testing-distribution, robots-disallowed
	zhGBK     = "non-english-support"  // served as GBK, charset in the header only
	zhGB18030 = "donating"             // served as GB18030, charset in <meta> only
)

// edits are the word substitutions of a mirrored copy: each replaces the
// first whole-word occurrence; the first three that apply are used.
var edits = map[string][][2]string{
	"en": {{"users", "people"}, {"system", "machine"}, {"packages", "programs"}, {"software", "code"}, {"distribution", "release"}},
	"zh": {{"软件包", "程序包"}, {"系统", "平台"}, {"用户", "使用者"}, {"可以", "能够"}, {"发行版", "发布版"}},
}

// editCopy returns a copy of paras with up to three words changed and a
// description of the changes ("users→people, ...").
func editCopy(lang string, paras []string) ([]string, string) {
	out := append([]string(nil), paras...)
	var done []string
	for _, e := range edits[lang] {
		if len(done) == 3 {
			break
		}
		var re *regexp.Regexp
		if lang == "en" {
			re = regexp.MustCompile(`\b` + regexp.QuoteMeta(e[0]) + `\b`)
		} else {
			re = regexp.MustCompile(regexp.QuoteMeta(e[0]))
		}
		for i, p := range out {
			if loc := re.FindStringIndex(p); loc != nil {
				out[i] = p[:loc[0]] + e[1] + p[loc[1]:]
				done = append(done, e[0]+"→"+e[1])
				break
			}
		}
	}
	return out, strings.Join(done, ", ")
}

// snippet returns the first sentence of the first paragraph (at most 120
// bytes, cut at a rune boundary), as it appears in the page's text.
func snippet(paras []string) string {
	p := paras[0]
	for i, r := range p {
		if i > 0 && (r == '.' || r == '。' || r == '？' || r == '?' || r == '：') {
			p = p[:i+len(string(r))]
			break
		}
	}
	if len(p) > 120 {
		cut := 120
		for cut > 0 && !utf8RuneStart(p[cut]) {
			cut--
		}
		p = p[:cut]
	}
	return strings.TrimSpace(p)
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
