package crawler

import (
	"fmt"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// This file is the one place that turns a configs.Config into the
// components of a crawl: the URL seen-filter, the content deduper, the
// store options. Every command (crawl, serve, dedup, demo, the benchmarks)
// and the tests build them here; New calls them for the Options left nil.

// NewSeenFilter builds the URL seen-filter that d describes (dedup.filter,
// dedup.capacity, dedup.target_fp; a chain filter rotates every
// dedup.recrawl_window/4 so that it remembers every URL seen within the
// window). Errors name the config field.
func NewSeenFilter(d configs.Dedup) (urlfilter.Filter, error) {
	o := urlfilter.Options{Variant: d.Filter, Capacity: d.Capacity, TargetFP: d.TargetFP}
	if d.Filter == urlfilter.VariantChain {
		// A ring of 5 generations rotated every window/4 remembers every URL
		// seen within the last recrawl_window.
		o.Period = time.Duration(d.RecrawlWindow) / 4
	}
	f, err := urlfilter.New(o)
	if err != nil {
		return nil, fmt.Errorf("dedup.filter: %w", err)
	}
	return f, nil
}

// DedupOptions returns the contentdedup options for d. dedup.simhash_threshold
// (and every --threshold flag, which the commands pass here) reads 0 as
// "exact matches only"; contentdedup.Options reads its zero Threshold as
// its default, like every zero field of its Options. This is the only
// place where the one becomes the other.
func DedupOptions(d configs.Dedup) contentdedup.Options {
	k := d.SimHashThreshold
	if k == 0 {
		k = contentdedup.ThresholdExact
	}
	return contentdedup.Options{Threshold: k}
}

// NewDeduper builds the content deduper that d describes (DedupOptions).
func NewDeduper(d configs.Dedup) (*contentdedup.Deduper, error) {
	dd, err := contentdedup.New(DedupOptions(d))
	if err != nil {
		return nil, fmt.Errorf("dedup.simhash_threshold: %w", err)
	}
	return dd, nil
}

// StoreOptions returns the options a crawl opens its store with. A crawl
// writes far more than it reads: small memtables and block cache keep
// Badger's share of the process's memory small.
func StoreOptions(s configs.Store) *storage.Options {
	return &storage.Options{MemTableSize: 32 << 20, BlockCacheSize: 16 << 20, Compression: s.Compression, MinFreeBytes: s.MinFreeBytes}
}
