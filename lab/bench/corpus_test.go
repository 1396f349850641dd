package bench

import (
	"context"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genText returns a paragraph of n words: English words with "the" about
// one word in eight, or Han characters with a full stop every 20.
func genText(rng *rand.Rand, lang string, n int) string {
	var b strings.Builder
	en := []string{"the", "package", "system", "debian", "install", "file", "user", "network", "kernel", "build",
		"release", "mirror", "archive", "source", "binary", "version", "depends", "library", "manual", "boot"}
	for i := 0; i < n; i++ {
		if lang == "zh" {
			b.WriteRune(rune(0x4e00 + rng.IntN(3000)))
			if i%20 == 19 {
				b.WriteString("。")
			}
			continue
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		if rng.IntN(8) == 0 {
			b.WriteString("the")
		} else {
			b.WriteString(en[rng.IntN(len(en))])
		}
	}
	return b.String()
}

// writeCorpus writes pages of paras paragraphs of words words each per
// language under dir (en/NAME.html, zh/NAME.html), wrapped in a template
// with a nav and a footer the extraction must drop, and returns the main
// text of each page by file name, as crawler.Extract will give it.
func writeCorpus(t *testing.T, dir string, pagesPerLang, paras, words int) map[string]string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	want := map[string]string{}
	for _, lang := range []string{"en", "zh"} {
		if err := os.MkdirAll(filepath.Join(dir, lang), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < pagesPerLang; i++ {
			var ps []string
			var body strings.Builder
			for p := 0; p < paras; p++ {
				ps = append(ps, genText(rng, lang, words))
				fmt.Fprintf(&body, "<p>%s</p>\n", html.EscapeString(ps[p]))
			}
			name := fmt.Sprintf("%s/page%d.html", lang, i)
			page := fmt.Sprintf("<!doctype html><html><head><title>%s page %d</title></head><body><nav><a href=\"/\">home</a> the menu</nav>"+
				"<main>%s</main><footer>the footer</footer></body></html>", lang, i, body.String())
			if err := os.WriteFile(filepath.Join(dir, name), []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			want[name] = strings.Join(ps, "\n")
		}
	}
	return want
}

func TestLoadCorpus(t *testing.T) {
	dir := t.TempDir()
	want := writeCorpus(t, dir, 3, 2, 60)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a page"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "corpus")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	pages, err := LoadCorpus(context.Background(), []string{link}, CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != len(want) {
		t.Fatalf("%d pages, want %d", len(pages), len(want))
	}
	for _, p := range pages {
		rel, _ := filepath.Rel(dir, strings.TrimPrefix(p.URL, "file://"))
		if p.Text != want[rel] {
			t.Errorf("%s: text %.80q..., want %.80q...", rel, p.Text, want[rel])
		}
		if !strings.HasSuffix(p.Title, " page "+rel[len(rel)-6:len(rel)-5]) {
			t.Errorf("%s: title %q", rel, p.Title)
		}
	}
	sample, err := LoadCorpus(context.Background(), []string{dir}, CorpusOptions{MaxFiles: 4, Seed: 1})
	if err != nil || len(sample) != 4 {
		t.Errorf("MaxFiles 4: %d pages, %v", len(sample), err)
	}
	if _, err := LoadCorpus(context.Background(), []string{filepath.Join(dir, "missing")}, CorpusOptions{}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing directory: %v", err)
	}
}

func TestLanguage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tests := []struct {
		text, want string
	}{
		{genText(rng, "en", 200), "en"},
		{genText(rng, "zh", 200), "zh"},
		{"汉字 and some English words, two Han characters among many letters", ""}, // < 1/3 Han, not ASCII enough
		{"Ein Satz auf Deutsch ohne das englische Artikelwort, länger", ""},      // no "the", not all ASCII
		{"这是中文和英文 with the", "zh"},                                               // 7 Han of 14 letters: >= 1/3
		{"这是中文 with the English the words", ""},                                  // 4 Han of 25 letters
		{"12345 678", ""}, // no letters
		{strings.Repeat("word ", 60) + strings.Repeat("the ", 2), "en"}, // 2 of 62 words: >= 1 in 50
		{strings.Repeat("word ", 60) + "the", ""},                       // 1 of 61 words
	}
	for _, tc := range tests {
		if got := Language(tc.text); got != tc.want {
			t.Errorf("Language(%.40q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
