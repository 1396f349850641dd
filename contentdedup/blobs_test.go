package contentdedup

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/lab/synthsite"
)

// TestSpillAnswersAsMemory checks a Deduper whose sketches and URLs are in
// a spill file (written in small chunks, so that most reads come from the
// file), and whose arrays are mapped (internal/mapped), against one that keeps them in memory: the same verdicts, URLs
// included, for a site with near-copies and repeated URLs; and the spill
// file is gone from the directory from the start.
func TestSpillAnswersAsMemory(t *testing.T) {
	dir := t.TempDir()
	mem := mustNew(t, Options{})
	spill := mustNew(t, Options{SpillDir: dir, MapArrays: true})
	defer spill.Close()
	spill.blobs.chunk = 4096
	spill.arrays.SetMinBytes(1) // every array mapped
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("spill dir holds %v (%v): the file should be unlinked", ents, err)
	}
	site := synthsite.Site{N: 600, Seed: 11}
	dups := 0
	for round := range 2 { // the second round answers by URL
		for i := range site.N {
			url, title, text := "http://127.0.0.1/"+synthsite.Path(i), site.Title(i), site.Text(i)
			if i%7 == 3 {
				url = fmt.Sprintf("http://127.0.0.1/copy/%d/%d", round, i) // a new URL for old text
			}
			a, b := mem.Check(url, title, text), spill.Check(url, title, text)
			if a != b {
				t.Fatalf("round %d page %d: memory %+v, spill %+v", round, i, a, b)
			}
			if a.Duplicate && a.MatchURL == "" {
				t.Fatalf("page %d: duplicate without a match URL: %+v", i, a)
			}
			if a.Duplicate {
				dups++
			}
		}
	}
	if spill.blobs.base == 0 {
		t.Fatal("nothing was written to the spill file; the test is not testing")
	}
	if dups < site.N+site.NearCopies() {
		t.Errorf("%d duplicates; want at least %d", dups, site.N+site.NearCopies())
	}
	if runtime.GOOS == "linux" && spill.MappedBytes() == 0 {
		t.Error("no array was mapped")
	}
	if err := spill.Err(); err != nil {
		t.Error(err)
	}
}
