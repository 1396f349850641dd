package extracteval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain_Articles(t *testing.T) {
	var out bytes.Buffer
	args := []string{"-worst", "3"}
	if a := os.Getenv("EXTRACTEVAL_ARGS"); a != "" {
		args = strings.Fields(a)
	}
	if err := Main(context.Background(), args, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if !strings.Contains(out.String(), "set aeb: 181 pages") {
		t.Errorf("output lacks the aeb set:\n%s", out.String())
	}
}

// -write lays the labelled pages out as a site: every page as fetched,
// and an index linking each of them.
func TestMain_Write(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := Main(context.Background(), []string{"-write", dir, "-sets", "aeb"}, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "aeb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 183 {
		t.Fatalf("%d files written, want 181 pages, index.html and urls.tsv", len(ents))
	}
	urls, err := os.ReadFile(filepath.Join(dir, "aeb", "urls.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(urls), "\n"); n != 181 {
		t.Errorf("urls.tsv has %d lines, want one per page (181)", n)
	}
	idx, err := os.ReadFile(filepath.Join(dir, "aeb", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "index.html" && e.Name() != "urls.tsv" && !bytes.Contains(idx, []byte(`href="`+e.Name()+`"`)) {
			t.Errorf("index.html does not link %s", e.Name())
		}
	}
	if strings.Contains(out.String(), "set aeb:") {
		t.Errorf("-write also ran the evaluation:\n%s", out.String())
	}
}
