package crawler

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkExtractCorpus extracts up to 300 pages of the HTML corpus in
// $BLOOMCRAWL_EXTRACT_CORPUS (e.g. the python3.11 docs) per iteration: the
// extractor's own cost, without fetching and storing. Compare two builds
// by their CPU time, e.g. with farm-bench on their test binaries.
func BenchmarkExtractCorpus(b *testing.B) {
	dir := os.Getenv("BLOOMCRAWL_EXTRACT_CORPUS")
	if dir == "" {
		b.Skip("set BLOOMCRAWL_EXTRACT_CORPUS to a directory of .html pages")
	}
	var pages [][]byte
	err := filepath.WalkDir(dir+string(filepath.Separator), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") || strings.Contains(p, "_sources") || len(pages) >= 300 {
			return err
		}
		page, err := os.ReadFile(p)
		pages = append(pages, page)
		return err
	})
	if err != nil || len(pages) == 0 {
		b.Fatalf("%s: %d pages, %v", dir, len(pages), err)
	}
	u, _ := url.Parse("http://127.0.0.1/page.html")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range pages {
			if _, err := Extract(p, "text/html; charset=utf-8", false, u); err != nil {
				b.Fatal(err)
			}
		}
	}
}
