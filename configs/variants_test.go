package configs_test

import (
	"slices"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// TestFilterVariantsMatchURLFilter keeps dedup.filter's accepted values in
// step with what urlfilter.New builds, and checks that every value the
// config accepts builds a filter.
func TestFilterVariantsMatchURLFilter(t *testing.T) {
	want := append([]string{urlfilter.VariantDefault}, urlfilter.Variants...)
	got := slices.Clone(configs.FilterVariants)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("configs.FilterVariants = %v, urlfilter accepts %v", got, want)
	}
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
