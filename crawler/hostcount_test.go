package crawler

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestHostCountersBounded crawls ten hosts (one with 20 pages, nine with
// a home page only) with room for the counters of four: Hosts keeps four,
// the big host among them with every fetch of its own; the six hosts
// pushed out are summed in Breakdown's OtherHosts, so that every response
// and byte is counted once, by its host or there.
func TestHostCountersBounded(t *testing.T) {
	const limit, small, bigPages = 4, 9, 20
	var smalls []*loopHost
	var links []string
	for i := range small {
		s := serveLoopHost(t, "127.0.0.1", 700+i, nil)
		smalls = append(smalls, s)
		links = append(links, a(s.url("/")))
	}
	for i := range bigPages {
		links = append(links, a(fmt.Sprintf("/p%d", i)))
	}
	big := serveLoopHost(t, "127.0.0.1", 690, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/" {
			fmt.Fprint(w, pageOf("home", 691, links...))
			return true
		}
		return false
	})
	cfg := accessConfig(big.url("/"), "127.0.0.1")
	cfg.Store.Dir = t.TempDir()
	db, err := storage.Open(cfg.Store.Dir, StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := newCrawler(cfg, Options{Store: db, Grace: time.Second, HostCounters: limit})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := c.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1 + bigPages + small); st.Fetched != want {
		t.Fatalf("fetched %d, want %d", st.Fetched, want)
	}
	hosts, b := c.Hosts(), c.Breakdown()
	if len(hosts) != limit {
		t.Errorf("Hosts() has %d hosts, want %d: %+v", len(hosts), limit, hosts)
	}
	var fetched, bytes int64
	bigKept := false
	for _, h := range hosts {
		fetched += h.Fetched
		bytes += h.Bytes
		if h.Host == big.host() {
			bigKept = true
			if h.Fetched != 1+bigPages {
				t.Errorf("big host: %d fetched, want %d", h.Fetched, 1+bigPages)
			}
		}
	}
	if !bigKept {
		t.Errorf("the host with the most fetches is not among Hosts(): %+v", hosts)
	}
	o := b.OtherHosts
	if o.Hosts != 1+small-limit || o.Errors != 0 {
		t.Errorf("OtherHosts = %+v, want %d hosts pushed out, no errors", o, 1+small-limit)
	}
	var responses int64
	for _, n := range b.Status {
		responses += n
	}
	if fetched+o.Fetched != responses || responses != st.Fetched {
		t.Errorf("fetches: %d by host + %d other hosts, %d responses by status, %d fetched: want all equal", fetched, o.Fetched, responses, st.Fetched)
	}
	if bytes+o.Bytes != b.Bytes || o.Bytes == 0 {
		t.Errorf("bytes: %d by host + %d other hosts, want %d (some in other hosts)", bytes, o.Bytes, b.Bytes)
	}
}

// BenchmarkHostCounter measures hostCounter with its table full (the
// default 1,000 hosts): "new" is a host not counted yet, which pushes the
// host with the fewest fetches out (a scan of the table); "kept" is a host
// already counted. "unbounded" counts every host (as before the cap): its
// B/op is the memory a counted host costs.
func BenchmarkHostCounter(b *testing.B) {
	full := func() *control {
		ct := &control{hostCount: map[string]*hostCount{}}
		for i := range DefaultHostCounters {
			ct.hostCounter(fmt.Sprintf("host-%d.example:80", i), DefaultHostCounters).fetched = int64(i + 1)
		}
		return ct
	}
	b.Run("new", func(b *testing.B) {
		ct := full()
		hosts := make([]string, b.N)
		for i := range hosts {
			hosts[i] = fmt.Sprintf("new-%d.example:80", i)
		}
		b.ResetTimer()
		for i := range b.N {
			ct.hostCounter(hosts[i], DefaultHostCounters).fetched++
		}
	})
	b.Run("unbounded", func(b *testing.B) {
		ct := &control{hostCount: map[string]*hostCount{}}
		hosts := make([]string, b.N)
		for i := range hosts {
			hosts[i] = fmt.Sprintf("new-%d.example:80", i)
		}
		b.ResetTimer()
		for i := range b.N {
			ct.hostCounter(hosts[i], b.N+1).fetched++
		}
	})
	b.Run("kept", func(b *testing.B) {
		ct := full()
		for b.Loop() {
			ct.hostCounter("host-500.example:80", DefaultHostCounters).fetched++
		}
	})
}
