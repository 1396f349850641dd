package samplesite

import (
	"sort"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
)

// TestSimHashDistances measures, with contentdedup's tokenizer and
// fingerprint, the Hamming distance between every Doc and each of its
// copies and between every two distinct Docs, on the main text a crawler
// extracts. It asserts what the Manifest guarantees for any fingerprint:
// same-text copies are at distance 0, and distinct Docs are farther apart
// than the largest threshold the config allows (contentdedup.MaxThreshold),
// so no threshold merges two of them. For near-duplicates (SameText false)
// it logs the distances: whether a crawl merges them is the fingerprint's
// recall, which the crawl reports.
func TestSimHashDistances(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the gse dictionary")
	}
	tok := contentdedup.NewTokenizer()
	_, base := startSite(t, Options{SlowDelay: -1})
	m := New().Manifest()
	fp := func(path string) uint64 {
		resp, body := get(t, base+path)
		p := parseHTML(t, body, resp.Header.Get("Content-Type"))
		f, _, _ := contentdedup.FingerprintParams{}.Fingerprint(tok.Tokens(nil, p.text))
		return f
	}
	const threshold = 3 // configs.DefaultSimHashThreshold
	docFP := map[string]uint64{}
	near, found := 0, 0
	for _, d := range m.Docs {
		docFP[d.Path] = fp(d.Path)
		for _, c := range d.Copies {
			dist := contentdedup.Hamming(docFP[d.Path], fp(c.Path))
			if c.SameText {
				if dist != 0 {
					t.Errorf("%s (%s copy of %s): distance %d, want 0", c.Path, c.Kind, d.Path, dist)
				}
				continue
			}
			near++
			if dist <= threshold {
				found++
			}
			t.Logf("near-duplicate %-40s (%s) distance %d", c.Path, c.Kind, dist)
		}
	}
	var dists []int
	for i, a := range m.Docs {
		for _, b := range m.Docs[i+1:] {
			dist := contentdedup.Hamming(docFP[a.Path], docFP[b.Path])
			dists = append(dists, dist)
			if dist <= contentdedup.MaxThreshold {
				t.Errorf("distinct docs %s and %s: distance %d <= %d", a.Path, b.Path, dist, contentdedup.MaxThreshold)
			}
		}
	}
	sort.Ints(dists)
	t.Logf("near-duplicates within distance %d: %d of %d; distinct pairs: %d, min distance %d, median %d",
		threshold, found, near, len(dists), dists[0], dists[len(dists)/2])
}
