package render

import (
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/net/html"
)

// BenchmarkDetectNode runs the cheap check on real documentation pages
// (up to 300 files of $CORPUS_GLOB, default the Debian handbook's English
// pages as /work/shared/lab/get-corpora.sh unpacks them), parsed
// beforehand as the crawler parses them:
//
//	CORPUS_GLOB='/tmp/corpora/python311/*/*.html' go test ./render -run '^$' -bench DetectNode
func BenchmarkDetectNode(b *testing.B) {
	files, _ := filepath.Glob(cmp.Or(os.Getenv("CORPUS_GLOB"), "/tmp/corpora/handbook/en-US/*.html"))
	if len(files) == 0 {
		b.Skip("no corpus pages: set CORPUS_GLOB")
	}
	var roots []*html.Node
	var sizes []int
	var total int
	for _, f := range files[:min(len(files), 300)] {
		p, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		r, err := html.Parse(bytes.NewReader(p))
		if err != nil {
			b.Fatal(err)
		}
		roots, sizes, total = append(roots, r), append(sizes, len(p)), total+len(p)
	}
	b.SetBytes(int64(total / len(roots)))
	b.ResetTimer()
	for i := range b.N {
		DetectNode(roots[i%len(roots)], sizes[i%len(roots)])
	}
}
