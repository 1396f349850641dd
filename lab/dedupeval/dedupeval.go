// Package dedupeval measures near-duplicate detection against exact ground
// truth: it makes near-duplicate variants of real pages the way the web does
// (a changed header or footer, an inserted date line or ad block, 1-5% of the
// words edited, a paragraph moved, the end truncated), computes the exact
// Jaccard similarity of word 4-shingles for every pair of documents, and
// scores a clustering (documents with the same docId) by precision (merged
// pairs with J >= 0.5) and recall (pairs with J >= 0.9 that were merged).
//
// The ground truth never looks at how a pair was generated. Words, for the
// shingles: maximal runs of letters and digits, lower-cased; every Han
// character is a word of its own (so Chinese shingles are character
// 4-grams and do not depend on a segmenter).
//
// It also holds the naive SimHash baseline the benchmark compares with: one
// feature per word (per Han character), raw term-frequency weights,
// distance <= 3, linear scan. Everything is deterministic for a given
// seed.
package dedupeval

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"github.com/cespare/xxhash/v2"
)

// Doc is one document of an evaluation set.
type Doc struct {
	URL, Title, Text string
	Base             int    // index of the page it was made from
	Ops              string // how it was made ("" for an original page)
}

// Words returns the ground-truth words of text (see the package doc).
func Words(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			if start >= 0 {
				out = append(out, strings.ToLower(text[start:i]))
				start = -1
			}
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
		default:
			if start >= 0 {
				out = append(out, strings.ToLower(text[start:i]))
				start = -1
			}
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(text[start:]))
	}
	return out
}

// Shingles returns the sorted, distinct hashes of the word n-shingles of
// text (one shingle of all words if there are fewer than n).
func Shingles(text string, n int) []uint64 {
	w := Words(text)
	var out []uint64
	if len(w) == 0 {
		return nil
	}
	if len(w) < n {
		return []uint64{xxhash.Sum64String(strings.Join(w, " "))}
	}
	for i := 0; i+n <= len(w); i++ {
		out = append(out, xxhash.Sum64String(strings.Join(w[i:i+n], " ")))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Jaccard returns |a ∩ b| / |a ∪ b| of two sorted distinct sets (1 for two
// empty sets).
func Jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	i, j, inter := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// Pair is two documents (I < J) and the Jaccard similarity of their
// shingle sets.
type Pair struct {
	I, J    int
	Jaccard float64
}

// PairsAbove returns every pair of sets with Jaccard >= min, exactly: pairs
// sharing no shingle have J = 0, and the others are counted through an
// inverted index.
// min must be > 0.
func PairsAbove(sets [][]uint64, min float64) []Pair {
	if min <= 0 {
		panic("dedupeval: PairsAbove needs min > 0")
	}
	post := map[uint64][]int32{}
	for i, s := range sets {
		for _, h := range s {
			post[h] = append(post[h], int32(i))
		}
	}
	var out []Pair
	counts := make([]int32, len(sets))
	var touched []int32
	for i, s := range sets {
		touched = touched[:0]
		for _, h := range s {
			for _, j := range post[h] {
				if int(j) <= i {
					continue
				}
				if counts[j] == 0 {
					touched = append(touched, j)
				}
				counts[j]++
			}
		}
		for _, j := range touched {
			inter := int(counts[j])
			jac := float64(inter) / float64(len(s)+len(sets[j])-inter)
			if jac >= min {
				out = append(out, Pair{i, int(j), jac})
			}
			counts[j] = 0
		}
	}
	return out
}

// Score is the precision and recall of one clustering.
type Score struct {
	Name         string
	Docs         int
	Clusters     int
	Merged       int // pairs of documents given the same docId
	MergedGood   int // of those, pairs with J >= 0.5
	Truth        int // pairs with J >= 0.9
	TruthMerged  int // of those, pairs given the same docId
	Precision    float64
	Recall       float64
	WorstMerged  float64 // lowest J among merged pairs
	FalseMerges  []Pair  // merged pairs with J < 0.5 (first few)
	MissedTruths []Pair  // pairs with J >= 0.9 not merged (first few)
}

// Evaluate scores labels (one docId per document) against the shingle sets:
// truth must be PairsAbove(sets, 0.9).
func Evaluate(name string, labels []uint64, sets [][]uint64, truth []Pair) Score {
	s := Score{Name: name, Docs: len(labels), Truth: len(truth), WorstMerged: 1}
	groups := map[uint64][]int{}
	for i, l := range labels {
		groups[l] = append(groups[l], i)
	}
	s.Clusters = len(groups)
	for _, g := range groups {
		for a := 0; a < len(g); a++ {
			for b := a + 1; b < len(g); b++ {
				s.Merged++
				j := Jaccard(sets[g[a]], sets[g[b]])
				if j >= 0.5 {
					s.MergedGood++
				} else if len(s.FalseMerges) < 20 {
					s.FalseMerges = append(s.FalseMerges, Pair{g[a], g[b], j})
				}
				s.WorstMerged = min(s.WorstMerged, j)
			}
		}
	}
	for _, p := range truth {
		if labels[p.I] == labels[p.J] {
			s.TruthMerged++
		} else if len(s.MissedTruths) < 20 {
			s.MissedTruths = append(s.MissedTruths, p)
		}
	}
	s.Precision, s.Recall = 1, 1
	if s.Merged > 0 {
		s.Precision = float64(s.MergedGood) / float64(s.Merged)
	}
	if s.Truth > 0 {
		s.Recall = float64(s.TruthMerged) / float64(s.Truth)
	}
	return s
}

// NaiveFingerprint is the baseline SimHash: one feature per ground-truth
// word (per Han character), weight = raw term frequency.
func NaiveFingerprint(text string) uint64 {
	tf := map[string]int{}
	for _, w := range Words(text) {
		tf[w]++
	}
	var v [64]int
	for w, n := range tf {
		h := xxhash.Sum64String(w)
		for b := 0; b < 64; b++ {
			if h>>uint(b)&1 == 1 {
				v[b] += n
			} else {
				v[b] -= n
			}
		}
	}
	var fp uint64
	for b := 0; b < 64; b++ {
		if v[b] > 0 {
			fp |= 1 << uint(b)
		}
	}
	return fp
}

// LinearCluster gives each fingerprint, in order, the label of the closest
// earlier cluster representative within distance k (found by a linear scan),
// or a new label.
func LinearCluster(fps []uint64, k int) []uint64 {
	labels := make([]uint64, len(fps))
	var reps []int
	for i, fp := range fps {
		best, bestD := -1, k+1
		for _, r := range reps {
			if d := bits.OnesCount64(fps[r] ^ fp); d < bestD {
				best, bestD = r, d
			}
		}
		if best < 0 {
			reps = append(reps, i)
			labels[i] = uint64(i) + 1
		} else {
			labels[i] = labels[best]
		}
	}
	return labels
}

// Generator makes near-duplicate variants of pages. Its output depends only
// on the seed and the input.
type Generator struct {
	r    *rand.Rand
	lang string // "en" or "zh": which boilerplate and edit words to use
}

// NewGenerator returns a Generator for lang ("en" or "zh") seeded with seed.
func NewGenerator(lang string, seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, 0x5eed)), lang: lang}
}

var (
	enHeaders = []string{"Home | Docs | Blog | Contact", "Skip to main content", "You are here: Home › Documentation", "Menu Search Sign in Register", "Mirror of the official documentation, updated nightly"}
	enFooters = []string{"Copyright © 2026 Example Corp. All rights reserved.", "Privacy policy · Terms of use · Cookie settings", "Was this page helpful? Yes No", "Share on Twitter Facebook LinkedIn", "Last updated by the site maintainers. Report a problem with this page."}
	enAds     = []string{"Advertisement: Fast cloud servers from $5 a month. Sign up today and get two months free!", "Sponsored: Learn to code in 30 days with our online bootcamp. Enroll now and save 50%.", "Subscribe to our newsletter for weekly tips, tricks and exclusive offers."}
	enDates   = []string{"Posted on %s by admin", "Published %s · 5 min read", "Updated: %s", "Last modified %s"}
	enWords   = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")
	zhHeaders = []string{"首页 | 新闻 | 社区 | 下载 | 联系我们", "当前位置：首页 > 文档中心", "跳到主要内容 登录 注册", "本站为官方文档镜像，每日更新"}
	zhFooters = []string{"版权所有 © 2026 示例公司 保留所有权利", "隐私政策 · 使用条款 · 网站地图", "本文由网友投稿，如有侵权请联系删除。", "分享到：微博 微信 QQ空间", "京ICP备12345678号 京公网安备11010502000000号"}
	zhAds     = []string{"广告：云服务器限时特惠，新用户首年仅需99元，立即注册领取优惠券！", "推广：零基础学编程，30天掌握开发技能，报名立减500元。", "关注我们的公众号，获取每周精选技术文章和独家福利。"}
	zhDates   = []string{"发布时间：%s 来源：本站", "%s 编辑：管理员", "更新于 %s", "发表于 %s 阅读 1024 次"}
	zhChars   = []rune("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严")
)

func (g *Generator) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *Generator) date() string {
	y, m, d := 2020+g.r.IntN(7), 1+g.r.IntN(12), 1+g.r.IntN(28)
	if g.lang == "zh" {
		return fmt.Sprintf("%d年%d月%d日 %02d:%02d", y, m, d, g.r.IntN(24), g.r.IntN(60))
	}
	return fmt.Sprintf("%s %d, %d", []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}[m-1], d, y)
}

// The operations a variant is made of.
const (
	OpHeaderFooter = "header/footer"
	OpDateLine     = "date line"
	OpAdBlock      = "ad block"
	OpEdit         = "edit"
	OpMove         = "move paragraph"
	OpTruncate     = "truncate"
)

var allOps = []string{OpHeaderFooter, OpDateLine, OpAdBlock, OpEdit, OpMove, OpTruncate}

// Variant returns a near-duplicate of d made of 1 to 3 random operations
// (at most one of each): new header and footer lines, a date line at the
// top, an ad block inside, 1-5% of the words replaced (Chinese: 1-5% of the
// Han characters), a paragraph moved elsewhere, the last 2-10% cut off. The
// title sometimes gets a site suffix. The URL is new.
func (g *Generator) Variant(d Doc, base, n int) Doc {
	ops := slices.Clone(allOps)
	g.r.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	ops = ops[:1+g.r.IntN(3)]
	slices.SortFunc(ops, func(a, b string) int { return slices.Index(allOps, a) - slices.Index(allOps, b) })
	paras := strings.Split(d.Text, "\n")
	var desc []string
	for _, op := range ops {
		switch op {
		case OpEdit:
			pct := 1 + g.r.IntN(5)
			paras = g.edit(paras, float64(pct)/100)
			desc = append(desc, fmt.Sprintf("edit %d%%", pct))
		case OpMove:
			if len(paras) > 2 {
				i := g.r.IntN(len(paras))
				p := paras[i]
				paras = slices.Delete(paras, i, i+1)
				j := g.r.IntN(len(paras) + 1)
				paras = slices.Insert(paras, j, p)
			}
			desc = append(desc, op)
		case OpTruncate:
			pct := 2 + g.r.IntN(9)
			text := strings.Join(paras, "\n")
			rs := []rune(text)
			paras = strings.Split(string(rs[:len(rs)*(100-pct)/100]), "\n")
			desc = append(desc, fmt.Sprintf("truncate %d%%", pct))
		case OpAdBlock:
			ad := g.pick(enAds)
			if g.lang == "zh" {
				ad = g.pick(zhAds)
			}
			paras = slices.Insert(paras, g.r.IntN(len(paras)+1), ad)
			desc = append(desc, op)
		case OpDateLine:
			f := g.pick(enDates)
			if g.lang == "zh" {
				f = g.pick(zhDates)
			}
			paras = slices.Insert(paras, 0, fmt.Sprintf(f, g.date()))
			desc = append(desc, op)
		case OpHeaderFooter:
			h, f := g.pick(enHeaders), g.pick(enFooters)
			if g.lang == "zh" {
				h, f = g.pick(zhHeaders), g.pick(zhFooters)
			}
			paras = append([]string{h}, append(paras, f)...)
			desc = append(desc, op)
		}
	}
	title := d.Title
	if g.r.IntN(3) == 0 {
		if g.lang == "zh" {
			title += " - 示例网"
		} else {
			title += " | Example Mirror"
		}
	}
	return Doc{
		URL:   fmt.Sprintf("https://variant%d.example/%d", n, base),
		Title: title, Text: strings.Join(paras, "\n"),
		Base: base, Ops: strings.Join(desc, "+"),
	}
}

// edit replaces a fraction of the words (English) or Han characters
// (Chinese) with random ones.
func (g *Generator) edit(paras []string, frac float64) []string {
	if g.lang == "zh" {
		rs := []rune(strings.Join(paras, "\n"))
		var han []int
		for i, r := range rs {
			if unicode.Is(unicode.Han, r) {
				han = append(han, i)
			}
		}
		n := int(float64(len(han))*frac + 0.5)
		for _, i := range g.r.Perm(len(han))[:n] {
			rs[han[i]] = zhChars[g.r.IntN(len(zhChars))]
		}
		return strings.Split(string(rs), "\n")
	}
	type loc struct{ p, w int }
	var all []loc
	words := make([][]string, len(paras))
	for p, s := range paras {
		words[p] = strings.Split(s, " ")
		for w := range words[p] {
			all = append(all, loc{p, w})
		}
	}
	n := int(float64(len(all))*frac + 0.5)
	for _, i := range g.r.Perm(len(all))[:n] {
		l := all[i]
		words[l.p][l.w] = enWords[g.r.IntN(len(enWords))]
	}
	out := make([]string, len(paras))
	for p := range words {
		out[p] = strings.Join(words[p], " ")
	}
	return out
}

// Generate returns the pages followed by variants of each: every page
// gets variants variants, then the whole set is shuffled (so a variant
// may come before its original, as on the web).
func (g *Generator) Generate(pages []Doc, variants int) []Doc {
	var out []Doc
	for i, p := range pages {
		p.Base = i
		out = append(out, p)
		for v := 0; v < variants; v++ {
			out = append(out, g.Variant(p, i, v))
		}
	}
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
