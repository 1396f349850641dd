package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// vocab returns n distinct letter-only words of vocabulary v.
func vocab(v, n int) string {
	out := make([]string, n)
	for i := range out {
		k := v*1000 + i
		b := []byte{'w'}
		for range 4 {
			b = append(b, byte('a'+k%26))
			k /= 26
		}
		out[i] = string(b)
	}
	return strings.Join(out, " ")
}

// TestCanonical counts exactly on five generated pages: a home page, an
// article and an identical copy of it, and two other articles.
func TestCanonical(t *testing.T) {
	dir := t.TempDir()
	pages := map[string]string{
		"index.html":     vocab(0, 150),
		"a/article.html": vocab(1, 150),
		"a/copy.html":    vocab(1, 150),
		"b/other.html":   vocab(2, 150),
		"b/third.html":   vocab(3, 150),
	}
	for name, text := range pages {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		html := fmt.Sprintf("<html><head><title>%s</title></head><body><main><p>%s</p></main></body></html>", name, text)
		if err := os.WriteFile(p, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Canonical(context.Background(), CanonicalOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sweep := r.Sweep
	r.Sweep = nil
	want := CanonicalResult{Dir: dir, Pages: 5, Pairs: 10, Accepted: 1, FalseMerges: 0, SameDocuments: 1, NearDuplicates: 1,
		NearMissed: 0, Home: "index.html", HomeDeclared: 4, HomeMerged: 0, HomeFalseMerges: 0}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got  %+v\nwant %+v", r, want)
	}
	// disjoint vocabularies estimate 0: every threshold accepts exactly
	// the identical pair
	for _, row := range sweep {
		if row.Accepted != 1 || row.FalseMerges != 0 || row.SameMissed != 0 {
			t.Errorf("sweep row %+v", row)
		}
	}
	if len(sweep) != len(canonicalSweep) {
		t.Errorf("%d sweep rows", len(sweep))
	}
}
