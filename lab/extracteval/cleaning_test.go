package extracteval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCleaningGold(t *testing.T) {
	body, _ := dragnetGold([]byte("Headline\n\nThe article text.\n\n!@#$%^&*()  COMMENTS\n\nFirst!\n"))
	if !strings.Contains(body, "The article text.") || strings.Contains(body, "First!") {
		t.Errorf("dragnet gold %q: want the article without the comments", body)
	}
	body, raw := cleanEvalGold([]byte("URL: http://example.org/a\n<h>Title here\n<p>A paragraph &amp; more.\n<l>an item\n"))
	if raw != "http://example.org/a" || strings.Contains(body, "URL") || strings.Contains(body, "<p>") || !strings.Contains(body, "A paragraph & more.") || !strings.Contains(body, "an item") {
		t.Errorf("cleaneval gold %q, url %q", body, raw)
	}
	body, _ = l3sGold([]byte(`<html><body><h1><span class="x-nc-sel1">Headline</span></h1>
<p><span class="x-nc-sel2">Full text.</span></p><p><span class="x-nc-sel3">Caption.</span></p>
<p><span class="x-nc-sel4">Related link</span></p><p><span class="x-nc-sel5">A comment</span></p>
<p><span class="x-nc-sel0">Menu</span></p></body></html>`))
	if body != "Headline \nFull text. \nCaption." {
		t.Errorf("l3s gold %q: want headline, full text and supplemental, one per line", body)
	}
	if got := string(stripTextTag([]byte("<text id=\"http://x\" title=\"t\">\n<html><p>x</p></html>\n</text>\n"))); strings.Contains(got, "<text") || strings.Contains(got, "</text>") || !strings.Contains(got, "<p>x</p>") {
		t.Errorf("stripTextTag: %q", got)
	}
}

// A cleaning set tree is read and scored, and -ref scores a reference
// extractor's texts beside ours: one that wrote the gold scores 1, one
// page it lacks is counted.
func TestMain_CleanAndRef(t *testing.T) {
	dir, ref := t.TempDir(), t.TempDir()
	article := strings.Repeat("The council met on Tuesday and agreed to widen the bridge over the river next spring. ", 8)
	page := "<html><body><nav><a href=/>Home</a> <a href=/news>News</a></nav><div class=story><h1>Bridge</h1><p>" + article + "</p></div><footer>Copyright 2012 Example News, all rights reserved</footer></body></html>"
	for _, k := range []string{"1", "2"} {
		for sub, b := range map[string]string{"input/" + k + ".html": page, "GoldStandard/" + k + ".txt": article} {
			p := filepath.Join(dir, "dragnet_data", sub)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(ref, "perfect", "dragnet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ref, "perfect", "dragnet", "1.txt"), []byte(article), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Main(context.Background(), []string{"-sets", "dragnet", "-clean", dir, "-ref", ref, "-worst", "0"}, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"set dragnet: 2 pages, no URLs given", "new       precision 1.000  recall 1.000  F1 1.000", "perfect   precision 1.000  recall 0.500  F1 0.667  (1 pages without its text, scored empty)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if err := Main(context.Background(), []string{"-clean", t.TempDir()}, &out, os.Stderr); err == nil || !strings.Contains(err.Error(), "dragnet_data") {
		t.Errorf("an empty -clean directory: %v, want an error naming the sets it looks for", err)
	}
}
