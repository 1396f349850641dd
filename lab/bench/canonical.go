package bench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/dedupeval"
)

// CanonicalOptions configure [Canonical].
type CanonicalOptions struct {
	// Dir holds the HTML pages (*.html, found recursively, taken in path
	// order). Required.
	Dir string
	// Max is the number of pages read (default 300: a sample drawn with
	// Seed when the directory has more, see LoadCorpus; all pairs of them
	// are measured).
	Max  int
	Seed uint64
	// Home is the page every other page declares canonical in the misuse
	// measurement, relative to Dir (default "index.html"; it is read even
	// when beyond Max).
	Home string
}

// CanonicalResult is what [Canonical] measured: the rel=canonical guard
// (contentdedup's CanonicalAgrees, as CheckCanonical applies it) on every
// pair of real pages, against exact truth: the Jaccard similarity of the
// pages' word 4-shingles (dedupeval), where J >= 0.5 counts as the same
// document and J >= 0.9 as a near-duplicate.
type CanonicalResult struct {
	Dir   string `json:"dir"`
	Pages int    `json:"pages"` // pages with text (a signature with a sketch or an exact hash)
	Pairs int    `json:"pairs"`
	// If any page declared any other canonical: pairs the guard merges,
	// and of those the ones that are different documents (exact J < 0.5).
	Accepted       int `json:"accepted"`
	FalseMerges    int `json:"false_merges"`
	SameDocuments  int `json:"same_documents"`  // pairs with exact J >= 0.5
	NearDuplicates int `json:"near_duplicates"` // pairs with exact J >= 0.9
	// NearMissed are near-duplicates (exact J >= 0.9) the guard rejects.
	NearMissed int `json:"near_missed"`
	// Sweep: the same pairs judged by the estimated Jaccard of the two
	// sketches alone at other thresholds (pairs where both pages have a
	// sketch), to show what the guard's threshold trades.
	Sweep []CanonicalSweepRow `json:"sweep"`
	// The common misuse: every page declares Home canonical.
	Home            string `json:"home"`
	HomeDeclared    int    `json:"home_declared"`
	HomeMerged      int    `json:"home_merged"`
	HomeFalseMerges int    `json:"home_false_merges"` // merged although exact J < 0.5
}

// CanonicalSweepRow is one threshold of CanonicalResult.Sweep.
type CanonicalSweepRow struct {
	Jaccard     float64 `json:"estimated_jaccard_min"`
	Accepted    int     `json:"accepted"`
	FalseMerges int     `json:"false_merges"` // accepted, exact J < 0.5
	SameMissed  int     `json:"same_missed"`  // exact J >= 0.5, not accepted
}

// canonicalSweep are the thresholds of CanonicalResult.Sweep.
var canonicalSweep = []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8}

// Canonical measures the rel=canonical guard on the HTML pages of
// o.Dir: every page is read by LoadCorpus (the crawler's extraction) and signed by
// a default Deduper; every pair is judged by CanonicalAgrees and by the
// exact Jaccard of word 4-shingles.
func Canonical(ctx context.Context, o CanonicalOptions) (CanonicalResult, error) {
	if o.Dir == "" {
		return CanonicalResult{}, fmt.Errorf("bench canonical: no directory")
	}
	if o.Max <= 0 {
		o.Max = 300
	}
	if o.Home == "" {
		o.Home = "index.html"
	}
	corpus, err := LoadCorpus(ctx, []string{o.Dir}, CorpusOptions{MaxFiles: o.Max, Seed: o.Seed})
	if err != nil {
		return CanonicalResult{}, fmt.Errorf("bench canonical: %w", err)
	}
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		return CanonicalResult{}, err
	}
	c := &canonicalRun{d: d, res: CanonicalResult{Dir: o.Dir, Home: o.Home}}
	var pages []canonicalPage
	for _, p := range corpus {
		if pg, ok := c.sign(p.Title, p.Text); ok {
			pages = append(pages, pg)
		}
	}
	c.res.Pages = len(pages)
	for _, t := range canonicalSweep {
		c.res.Sweep = append(c.res.Sweep, CanonicalSweepRow{Jaccard: t})
	}
	if err := c.pairs(ctx, pages); err != nil {
		return c.res, err
	}
	if err := c.home(filepath.Join(o.Dir, o.Home), pages); err != nil {
		return c.res, err
	}
	return c.res, nil
}

// canonicalPage is a page of Canonical: its signature and its word
// 4-shingles.
type canonicalPage struct {
	sig    contentdedup.Signature
	shings []uint64
}

// canonicalRun counts into res what the guard of d does.
type canonicalRun struct {
	d   *contentdedup.Deduper
	res CanonicalResult
}

// sign signs a page; false means it has no text.
func (c *canonicalRun) sign(title, text string) (canonicalPage, bool) {
	sig := c.d.Sign(title, text)
	if sig.Flags&contentdedup.FlagContentEmpty != 0 {
		return canonicalPage{}, false
	}
	return canonicalPage{sig: sig, shings: dedupeval.Shingles(text, 4)}, true
}

// judge says whether the guard accepts a and b as the same document,
// whether they are the same document or near-duplicates by exact Jaccard,
// and whether accepting them is a false merge.
func (c *canonicalRun) judge(a, b canonicalPage) (accepted, same, near, bad bool) {
	_, accepted = c.d.CanonicalAgrees(a.sig, b.sig)
	j := dedupeval.Jaccard(a.shings, b.shings)
	return accepted, j >= 0.5, j >= 0.9, accepted && j < 0.5
}

// sweep counts the pair a, b (same: the same document) into each row of
// res.Sweep, if both pages have a sketch.
func (c *canonicalRun) sweep(a, b canonicalPage, same bool) {
	est, n := contentdedup.SketchJaccard(&a.sig.Sketch, &b.sig.Sketch)
	if n == 0 {
		return
	}
	for i := range c.res.Sweep {
		r := &c.res.Sweep[i]
		switch ok := est >= r.Jaccard; {
		case ok && !same:
			r.Accepted++
			r.FalseMerges++
		case ok:
			r.Accepted++
		case same:
			r.SameMissed++
		}
	}
}

// pairs judges every pair of pages.
func (c *canonicalRun) pairs(ctx context.Context, pages []canonicalPage) error {
	res := &c.res
	for i := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		for k := i + 1; k < len(pages); k++ {
			res.Pairs++
			acc, same, near, bad := c.judge(pages[i], pages[k])
			c.sweep(pages[i], pages[k], same)
			if acc {
				res.Accepted++
			}
			if bad {
				res.FalseMerges++
			}
			if same {
				res.SameDocuments++
			}
			if near {
				res.NearDuplicates++
				if !acc {
					res.NearMissed++
				}
			}
		}
	}
	return nil
}

// home judges every page but the home page at hp as if it declared the
// home page canonical.
func (c *canonicalRun) home(hp string, pages []canonicalPage) error {
	res := &c.res
	body, err := os.ReadFile(hp)
	if err != nil {
		return fmt.Errorf("bench canonical: home page: %w", err)
	}
	hdoc, err := crawler.Extract(body, "text/html", false, &url.URL{Scheme: "file", Path: hp})
	if err != nil {
		return fmt.Errorf("bench canonical: home page: %w", err)
	}
	home, ok := c.sign(hdoc.Title, hdoc.Text)
	if !ok {
		return fmt.Errorf("bench canonical: home page %s has no text", hp)
	}
	for _, pg := range pages {
		if pg.sig == home.sig {
			continue // the home page itself
		}
		res.HomeDeclared++
		acc, _, _, bad := c.judge(pg, home)
		if acc {
			res.HomeMerged++
		}
		if bad {
			res.HomeFalseMerges++
		}
	}
	return nil
}
