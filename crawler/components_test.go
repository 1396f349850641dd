package crawler

import (
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// TestNewDeduperThreshold: dedup.simhash_threshold (and every --threshold
// flag) means the distance in effect, 0 being exact matches only.
func TestNewDeduperThreshold(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, 0}, {1, 1}, {configs.DefaultSimHashThreshold, 3}, {6, 6}} {
		d, err := NewDeduper(configs.Dedup{SimHashThreshold: tc.in})
		if err != nil {
			t.Fatalf("simhash_threshold %d: %v", tc.in, err)
		}
		if got := d.Threshold(); got != tc.want {
			t.Errorf("simhash_threshold %d: deduper distance %d, want %d", tc.in, got, tc.want)
		}
	}
	if _, err := NewDeduper(configs.Dedup{SimHashThreshold: 7}); err == nil || !strings.Contains(err.Error(), "dedup.simhash_threshold") {
		t.Errorf("simhash_threshold 7: err = %v, want one naming dedup.simhash_threshold", err)
	}
}

// TestNewURLFilter builds every variant the config accepts with the
// config's sizing, and names the field on a bad one.
func TestNewURLFilter(t *testing.T) {
	for _, v := range configs.FilterVariants {
		d := configs.Default().Dedup
		d.Filter, d.Capacity = v, 1000
		if v == urlfilter.VariantChain {
			d.RecrawlWindow = configs.Duration(time.Hour)
		}
		f, err := NewURLFilter(d)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if f.TestAndAdd("http://a/") || !f.TestAndAdd("http://a/") {
			t.Errorf("%s: a URL added once is not seen", v)
		}
		if v != urlfilter.VariantExact && v != urlfilter.VariantChain && f.Stats().Capacity < 1000 {
			t.Errorf("%s: capacity %d, want >= dedup.capacity 1000", v, f.Stats().Capacity)
		}
	}
	if _, err := NewURLFilter(configs.Dedup{Filter: "bogus"}); err == nil || !strings.Contains(err.Error(), "dedup.filter") {
		t.Errorf("bogus filter: err = %v, want one naming dedup.filter", err)
	}
}
