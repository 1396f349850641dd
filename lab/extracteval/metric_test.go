package extracteval

import (
	"bytes"
	"compress/gzip"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		truth, pred string
		p, r        float64
	}{
		{"a b c d e", "a b c d e", 1, 1},
		{"a b c d e", "", 0, 0},
		{"a b c d e f", "a b c d e f x y z w", 3.0 / 7, 1}, // 3 shingles shared of 7 predicted
		{"a b c d e f g h", "a b c d e", 1, 2.0 / 5},
		{"one two", "one two", 1, 1}, // shorter than a shingle: one shingle
	}
	for _, c := range cases {
		s := match(c.truth, c.pred)
		if math.Abs(s.precision()-c.p) > 1e-9 || math.Abs(s.recall()-c.r) > 1e-9 {
			t.Errorf("match(%q, %q): P %.3f R %.3f, want %.3f %.3f", c.truth, c.pred, s.precision(), s.recall(), c.p, c.r)
		}
	}
	if got := strings.Join(tokens("Ein Wörterbuch, 中文 x_y!"), "|"); got != "Ein|Wörterbuch|中文|x_y" {
		t.Errorf("tokens = %s", got)
	}
}

func writeGz(t *testing.T, path string, b []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Main on a tiny set of its own, with -dedup and -docs.
func TestMainFlags(t *testing.T) {
	dir := t.TempDir()
	body := "Bloom filters answer set membership with a small false positive rate, and no false negatives. " +
		"A crawler uses one to remember the URLs it has already fetched, and SimHash to notice pages it already stored."
	page := func(site, nav string) string {
		return `<html><head><title>Bloom</title></head><body><div class="menu">` + nav +
			`</div><div class="story"><h1>Bloom</h1><p>` + body + `</p><p>` + body + `</p></div><div class="footer">© ` + site + `</div></body></html>`
	}
	writeGz(t, filepath.Join(dir, "tiny", "ground-truth.json.gz"), []byte(`{"a":{"url":"https://a.example/x","articleBody":"`+body+` `+body+`"},"b":{"url":"https://b.example/y","articleBody":"`+body+` `+body+`"}}`))
	writeGz(t, filepath.Join(dir, "tiny", "html", "a.html.gz"), []byte(page("a", `<a href="/1">One</a> <a href="/2">Two</a>`)))
	writeGz(t, filepath.Join(dir, "tiny", "html", "b.html.gz"), []byte(page("b", `<a href="/3">Three</a>`)))
	docs := filepath.Join(t.TempDir(), "corpus")
	os.MkdirAll(filepath.Join(docs, "d"), 0o755)
	os.WriteFile(filepath.Join(docs, "d", "p.html"), []byte(`<html><body><nav>x</nav><main><h1>Doc</h1><p>`+body+`</p><ul><li><a href="a.html">A</a></li></ul></main></body></html>`), 0o644)
	var out bytes.Buffer
	if err := Main(context.Background(), []string{"-data", dir, "-dedup", "-docs", filepath.Join(docs), "-worst", "1"}, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"set tiny: 2 pages, 2 sites",
		"new       precision 1.000  recall 1.000  F1 1.000",
		"new       syndicated copies merged 2/2",
		"set tiny near-duplicates: 2 syndicated copies",
		"docs d: 1 pages; 1 with a marked region: mean main-text recall 1.0000",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := Main(context.Background(), []string{"-nope"}, &out, &bytes.Buffer{}); err == nil {
		t.Error("unknown flag: no error")
	}
}
