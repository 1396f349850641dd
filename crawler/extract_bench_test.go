package crawler

import (
	"bytes"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// BenchmarkExtractCorpus extracts up to 300 pages of the HTML corpus in
// $BLOOMCRAWL_EXTRACT_CORPUS (e.g. the python3.11 docs) per iteration: the
// extractor's own cost, without fetching and storing. Compare two builds
// by their CPU time, e.g. with farm-bench on their test binaries.
func BenchmarkExtractCorpus(b *testing.B) {
	pages := corpusPages(b)
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

// BenchmarkMainTextCorpus is BenchmarkExtractCorpus without the parse
// (two thirds of Extract's time): the scan walk and the main text of the
// same pages, parsed once, so that a change to the extractor's own work
// shows above the noise.
func BenchmarkMainTextCorpus(b *testing.B) {
	var docs []*goquery.Document
	for _, p := range corpusPages(b) {
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(p))
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, doc)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, doc := range docs {
			var sc scan
			for _, n := range doc.Nodes {
				sc.walk(n)
			}
			mainText(doc, &sc)
		}
	}
}

// corpusPages reads up to 300 pages of $BLOOMCRAWL_EXTRACT_CORPUS.
func corpusPages(b *testing.B) [][]byte {
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
	return pages
}
