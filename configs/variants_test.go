package configs_test

import (
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// TestFilterVariantsMatchURLFilter checks that every value dedup.filter
// accepts builds a filter.
func TestFilterVariantsMatchURLFilter(t *testing.T) {
	for _, v := range configs.FilterVariants {
		d := configs.Default().Dedup
		o := urlfilter.Options{Variant: v, Capacity: 1000, TargetFP: d.TargetFP}
		if v == "chain" {
			o.Period = time.Hour // Validate requires recrawl_window > 0 for chain
		}
		if _, err := urlfilter.New(o); err != nil {
			t.Errorf("urlfilter.New(%q): %v", v, err)
		}
	}
}
