package crawler

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// BenchmarkClusterDedup is what content dedup costs a page: "local" is
// one node's Deduper.CheckCanonical; "log" is cluster mode on one node
// (Prepare, the append to the document log on a loopback redis-server,
// the replay); "log3" is three nodes judging pages at once (each page is
// appended once and replayed by all three, whose appends contend for the
// log). ns/op is per page; the documents are evalDocs' 288 cycled, each
// under a new URL. Run with -count to alternate the three.
func BenchmarkClusterDedup(b *testing.B) {
	bin, err := redistest.Binary()
	if err != nil {
		if os.Getenv("BLOOMCRAWL_CI") == "1" {
			b.Fatal(err)
		}
		b.Skip(err)
	}
	srv, err := redistest.StartServer(bin, b.TempDir(), false)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close) // after the nodes' Close (cleanups run last first)
	docs := evalDocs(b)
	var run atomic.Int64
	node := func(prefix, name string) *clusterDedup {
		n, err := cluster.Open(context.Background(), cluster.Options{URL: "redis://" + srv.Addr + "/0", Node: name, Partitions: 4, LeaseTTL: 10 * time.Second, Prefix: prefix})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { n.Close() })
		dd, _ := contentdedup.New(contentdedup.Options{})
		cd := newClusterDedup(n, dd, nil)
		if _, err := cd.start(context.Background(), "bench"); err != nil {
			b.Fatal(err)
		}
		return cd
	}
	// load gse's dictionary (once per process) before the first timing
	warm, _ := contentdedup.New(contentdedup.Options{})
	for _, d := range docs {
		warm.Prepare(d.Title, d.Text)
	}
	b.Run("local", func(b *testing.B) {
		dd, _ := contentdedup.New(contentdedup.Options{})
		for i := 0; b.Loop(); i++ {
			d := docs[i%len(docs)]
			dd.CheckCanonical(fmt.Sprintf("%s&i=%d", d.URL, i), "", d.Title, d.Text)
		}
	})
	b.Run("log", func(b *testing.B) {
		cd := node(fmt.Sprintf("b%d", run.Add(1)), "a")
		for i := 0; b.Loop(); i++ {
			d := docs[i%len(docs)]
			sig, sim := cd.dd.Prepare(d.Title, d.Text)
			if _, _, err := cd.check(context.Background(), fmt.Sprintf("%s&i=%d", d.URL, i), "", sig, sim, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("log3", func(b *testing.B) {
		prefix := fmt.Sprintf("b%d", run.Add(1))
		nodes := []*clusterDedup{node(prefix, "a"), node(prefix, "b"), node(prefix, "c")}
		var next, w atomic.Int64
		b.SetParallelism(1) // GOMAXPROCS goroutines, spread over the three nodes
		b.RunParallel(func(pb *testing.PB) {
			cd := nodes[w.Add(1)%3]
			for pb.Next() {
				i := int(next.Add(1))
				d := docs[i%len(docs)]
				sig, sim := cd.dd.Prepare(d.Title, d.Text)
				if _, _, err := cd.check(context.Background(), fmt.Sprintf("%s&i=%d", d.URL, i), "", sig, sim, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
