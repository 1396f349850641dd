package crawler

import (
	"errors"
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

// TestNewOptions: NewOptions gives New the settings cfg describes, builds
// the components o leaves nil, keeps those o gives, audits the filter on
// request, and builds no URL filter for a cluster node.
func TestNewOptions(t *testing.T) {
	cfg := configs.Default()
	cfg.Seeds = []string{"http://example.com/"}
	cfg.Scope.MaxDepth = 7
	cfg.Dedup.VerifyCacheBytes = 1 << 20
	o, err := NewOptions(cfg, Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	s := o.Settings
	if len(s.Seeds) != 1 || s.Scope.MaxDepth != 7 || s.Verify != cfg.Dedup.Verify || s.VerifyCacheBytes != 1<<20 ||
		s.Politeness.UserAgent != cfg.Politeness.UserAgent || s.Fetch.Timeout != cfg.Fetch.Timeout {
		t.Errorf("settings %+v do not match the config", s)
	}
	if o.URLFilter == nil || o.Dedup == nil || o.FalsePositives != nil {
		t.Errorf("built: URLFilter %v, Dedup %v, FalsePositives set %v", o.URLFilter, o.Dedup, o.FalsePositives != nil)
	}
	if a, err := NewOptions(cfg, Options{}, true); err != nil {
		t.Fatal(err)
	} else if _, ok := a.URLFilter.(*urlfilter.Audit); !ok || a.FalsePositives == nil {
		t.Errorf("audit: URLFilter %T, FalsePositives set %v", a.URLFilter, a.FalsePositives != nil)
	}
	f, _ := urlfilter.New(urlfilter.Options{Capacity: 100})
	d := newDeduper(t)
	if g, err := NewOptions(cfg, Options{URLFilter: f, Dedup: d}, true); err != nil {
		t.Fatal(err)
	} else if g.URLFilter != urlFilter(f) || g.Dedup != deduper(d) || g.FalsePositives != nil {
		t.Errorf("given components replaced: URLFilter %T, Dedup %T", g.URLFilter, g.Dedup)
	}
	node := struct{ clusterState }{} // never called: NewOptions only sees that it is set
	if c, err := NewOptions(cfg, Options{Cluster: node}, false); err != nil {
		t.Fatal(err)
	} else if c.URLFilter != nil || c.Dedup == nil {
		t.Errorf("cluster node: URLFilter %T, Dedup %T; want none and one", c.URLFilter, c.Dedup)
	}
	continuous := *cfg
	continuous.Recrawl.Continuous = true
	if _, err := NewOptions(&continuous, Options{Cluster: node}, false); err != nil {
		t.Errorf("cluster node with recrawl.continuous (the schedule is the partitions'): %v", err)
	}
	if _, err := NewOptions(cfg, Options{Cluster: node}, true); !errors.Is(err, ErrClusterAudit) {
		t.Errorf("cluster node with --audit: err = %v, want ErrClusterAudit", err)
	}
	bad := *cfg
	bad.Dedup.Filter = "bogus"
	if _, err := NewOptions(&bad, Options{}, false); err == nil || !strings.Contains(err.Error(), "dedup.filter") {
		t.Errorf("bad filter: err = %v, want one naming dedup.filter", err)
	}
}
