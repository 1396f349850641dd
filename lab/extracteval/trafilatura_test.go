package extracteval

import (
	"bytes"
	"os"
	"testing"
)

func TestCountSnippets(t *testing.T) {
	p := snippetPage{
		with:    []string{"Die GEMA  dreht\nvöllig", "am Zeiger!", "nicht da"},
		without: []string{"Impressum", "impressum", "Twitter"},
	}
	// whitespace runs (also a no-break space) count as one space; case counts
	got := countSnippets(p, "  Die GEMA dreht\u00a0völlig am\tZeiger! Impressum ")
	want := confusion{tp: 2, fn: 1, fp: 1, tn: 2}
	if got != want {
		t.Errorf("countSnippets = %+v, want %+v", got, want)
	}
	c := confusion{tp: 6, fp: 2, fn: 3, tn: 9}
	pr, rc, acc, f1 := c.scores()
	if pr != 6.0/8 || rc != 6.0/9 || acc != 15.0/20 || f1 != 12.0/17 {
		t.Errorf("scores = %v %v %v %v", pr, rc, acc, f1)
	}
	if pr, rc, acc, f1 := (confusion{}).scores(); pr+rc+acc+f1 != 0 {
		t.Errorf("empty scores = %v %v %v %v, want zeros", pr, rc, acc, f1)
	}
}

// TestSnippetSample scores the 20 committed pages of trafilatura's corpus.
// The raw page (decoded, everything kept) must score exactly what
// eval_common.count_item gives it (computed with Python on these pages:
// TP 52, FP 38, FN 11, TN 20), and the crawler's text must stay above a
// floor under its current score (F1 0.90 on the sample).
func TestSnippetSample(t *testing.T) {
	pages, err := snippetCorpus(os.DirFS("testdata/trafilatura"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 20 {
		t.Fatalf("%d pages, want 20", len(pages))
	}
	var out bytes.Buffer
	res := snippets(&out, pages, 5, "")
	t.Log("\n" + out.String())
	if raw := (confusion{tp: 52, fp: 38, fn: 11, tn: 20}); res[0].c != raw {
		t.Errorf("raw HTML: %+v, want %+v", res[0].c, raw)
	}
	if _, _, _, f1 := res[2].c.scores(); f1 < 0.85 {
		t.Errorf("new extractor F1 %.3f on the sample, under the floor 0.85", f1)
	}
}

func TestSnippetCorpus_Errors(t *testing.T) {
	dir := t.TempDir()
	if _, err := snippetCorpus(os.DirFS(dir)); err == nil {
		t.Error("a directory without evaldata.json loaded")
	}
	if err := os.WriteFile(dir+"/evaldata.json", []byte(`{"https://a.example/": {"file": "a.html", "with": ["x"], "without": ["y"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := snippetCorpus(os.DirFS(dir)); err == nil || !bytes.Contains([]byte(err.Error()), []byte("a.html not found")) {
		t.Errorf("missing page file: err = %v", err)
	}
}
