package filterbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// TestFilterCounts: each row's false positives equal a recount on a twin
// filter fed the same keys, bits per URL is the filter's own figure, and
// filters that cannot err (exact, a 64-bit hash map at this size) report 0.
func TestFilterCounts(t *testing.T) {
	const n = 4000
	keys := URLKeys(2 * n)
	rows, err := Filter(context.Background(), FilterOptions{Keys: keys, FP: 0.05,
		Variants: []string{"classic", "blocked", "mdbf", "exact", "peer-map", "default", "default-single"}})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]FilterRow{}
	for _, r := range rows {
		byName[r.Variant] = r
		if r.N != n || r.Fed != n || r.TestNs <= 0 || r.BitsPerURL <= 0 || r.MeasuredFP != float64(r.FalsePositives)/n {
			t.Errorf("%s: %+v", r.Variant, r)
		}
	}
	tests := []struct {
		variant string
		o       urlfilter.Options
	}{
		{"classic", urlfilter.Options{Variant: "classic", Capacity: n, TargetFP: 0.05}},
		{"blocked", urlfilter.Options{Variant: "blocked", Capacity: n, TargetFP: 0.05}},
		{"mdbf", urlfilter.Options{Variant: "mdbf", Capacity: n, TargetFP: 0.05}},
		{"default-single", urlfilter.Options{Capacity: n, TargetFP: 0.05}},
	}
	for _, tc := range tests {
		twin := mustFilter(t, tc.o)
		for _, k := range keys[:n] {
			twin.TestAndAdd(k)
		}
		want := 0
		for _, k := range keys[n:] {
			if twin.Test(k) {
				want++
			}
		}
		r := byName[tc.variant]
		if r.FalsePositives != want || want == 0 {
			t.Errorf("%s: %d false positives, twin recount %d (want equal and > 0 at FP 0.05)", tc.variant, r.FalsePositives, want)
		}
		if bpk := float64(twin.Stats().Bits) / n; r.BitsPerURL != bpk {
			t.Errorf("%s: %.3f bits per URL, filter says %.3f", tc.variant, r.BitsPerURL, bpk)
		}
	}
	if !strings.HasPrefix(byName["mdbf"].Impl, "mdbf S=") {
		t.Errorf("mdbf impl %q does not describe its shape", byName["mdbf"].Impl)
	}
	for _, v := range []string{"exact", "peer-map"} {
		if byName[v].FalsePositives != 0 {
			t.Errorf("%s: %d false positives", v, byName[v].FalsePositives)
		}
	}
	// default is the batch path (as frontier.Reserve), default-single the
	// one-key path: same filter, same keys, same answers.
	if d, s := byName["default"], byName["default-single"]; d.FalsePositives != s.FalsePositives || d.BitsPerURL != s.BitsPerURL {
		t.Errorf("default %+v and default-single %+v disagree", d, s)
	}
}

func TestFilterKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(path, []byte("a\n\nb\na\n c \nd\ne\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		n    int
		want []string
	}{
		{path, 2, []string{"a", "b", "c", "d"}},
		{path, 10, []string{"a", "b", "c", "d"}}, // 5 distinct lines: 2 inserted, 2 fresh
		{"", 3, URLKeys(6)},
	}
	for _, tc := range tests {
		got, err := FilterKeys(tc.path, tc.n, nil)
		if err != nil || strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("FilterKeys(%q, %d) = %q, %v; want %q", tc.path, tc.n, got, err, tc.want)
		}
	}
}
