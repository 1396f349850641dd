package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines caps cmd/bloomcrawl's non-test source: the command parses
// flags, wires packages together and maps errors to exit codes; logic
// belongs in the packages that own it.
const maxLines = 1800

// TestSizeCap counts the lines of the package's non-test .go files (as
// `wc -l $(ls cmd/bloomcrawl/*.go | grep -v _test)` does) and fails above
// maxLines.
func TestSizeCap(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total += bytes.Count(b, []byte("\n"))
	}
	t.Logf("cmd/bloomcrawl: %d non-test lines (cap %d)", total, maxLines)
	if total > maxLines {
		t.Errorf("cmd/bloomcrawl has %d non-test lines, over its cap of %d: move logic into the packages that own it", total, maxLines)
	}
}
