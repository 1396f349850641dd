//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// copySite is several hosts (127.0.0.2, …) that syndicate the same
// articles: /a/i on every host is article i (a few hundred words) with
// the host's own header and footer, so the copies of one article on
// different hosts are near-duplicates; /u/i is a page found on its host
// only. /a/i links to /a/2i+1, /a/2i+2 and /u/i of its host and to /a/i
// of the next host. It counts requests per URL.
type copySite struct {
	hosts    []*httptest.Server
	articles int
	mu       sync.Mutex
	count    map[string]int
}

func newCopySite(t *testing.T, hosts, articles int) *copySite {
	s := &copySite{articles: articles, count: map[string]int{}}
	s.hosts = startLoopbackHosts(t, hosts, s.serve)
	return s
}

var copyWords = strings.Fields("river stone lantern harbor orchard meadow signal copper winter garden pilot marble thunder violet canyon ember falcon glacier hollow island jasper kettle ledger mirror needle oyster pepper quartz ribbon saddle timber velvet walnut yonder zephyr anchor basket candle dagger engine fossil goblet hammer")

// text is n pseudo-random words from seed, in sentences.
func copyText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 99))
	var b strings.Builder
	for i := range n {
		b.WriteString(copyWords[r.IntN(len(copyWords))])
		if i%12 == 11 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func (s *copySite) serve(w http.ResponseWriter, r *http.Request, h int) {
	kind, num, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	i, err := strconv.Atoi(num)
	if err != nil || i < 0 || i >= s.articles || (kind != "a" && kind != "u") {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.count[r.Host+r.URL.Path]++
	s.mu.Unlock()
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head>")
	if kind == "a" {
		fmt.Fprintf(&b, "<title>Article %d | Host %d</title></head><body><p>Host %d news, front page.</p>\n<p>%s</p>\n<p>Host %d footer.</p>\n", i, h, h, copyText(uint64(i), 300), h)
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < s.articles {
				fmt.Fprintf(&b, "<a href=\"/a/%d\">more</a>\n", c)
			}
		}
		fmt.Fprintf(&b, "<a href=\"/u/%d\">local</a> <a href=\"%s/a/%d\">elsewhere</a>\n", i, s.hosts[(h+1)%len(s.hosts)].URL, i)
	} else {
		fmt.Fprintf(&b, "<title>Local %d of host %d</title></head><body><p>%s</p>\n", i, h, copyText(uint64(1000*(h+1)+i), 200))
	}
	b.WriteString("</body></html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(b.String()))
}

// TestClusterCrossNodeDuplicates crawls a four-host site of syndicated
// articles (copySite) with three nodes (child processes): the copies of
// an article on the four hosts are near-duplicates, usually fetched by
// different nodes, and must share one docId, with the page stored by
// exactly one node; the other copies' URL records name that docId and,
// when another node stores it, that node (also in query url); every
// host-only page is stored once under a docId of its own; every URL is
// fetched once.
func TestClusterCrossNodeDuplicates(t *testing.T) {
	addr := redistest.Start(t)
	crossNodeDuplicates(t, "redis://"+addr+"/0", []string{addr})
}

// TestClusterCrossNodeDuplicatesOnRedisCluster is
// TestClusterCrossNodeDuplicates on a Redis Cluster of three masters (the
// document log is one key: one slot, one shard).
func TestClusterCrossNodeDuplicatesOnRedisCluster(t *testing.T) {
	addrs := redistest.StartCluster(t, 3)
	crossNodeDuplicates(t, redistest.ClusterURL(addrs), addrs)
}

func crossNodeDuplicates(t *testing.T, url string, addrs []string) {
	const hosts, articles, nodes = 4, 40, 3
	site := newCopySite(t, hosts, articles)
	var seeds strings.Builder
	for _, h := range site.hosts {
		fmt.Fprintf(&seeds, "  - %s/a/0\n", h.URL)
	}
	var kids []*started
	var stores []string
	for n := range nodes {
		cfg := filepath.Join(t.TempDir(), "c.yaml")
		y := fmt.Sprintf("seeds:\n%sscope:\n  max_depth: 40\n  sitemaps: off\npoliteness:\n  obey_robots: false\n  per_host_parallelism: 2\n  concurrency: 4\n", seeds.String())
		if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		store := filepath.Join(t.TempDir(), "s")
		stores = append(stores, store)
		kids = append(kids, startChild(t, "crawl", cfg, "--store", store, "--json", "--mem-limit-mb", "0",
			"--cluster", url, "--node", fmt.Sprintf("node%d", n), "--lease-ttl", "2s"))
	}
	var stored, dups int64
	for n, k := range kids {
		if code := k.wait(t); code != 0 {
			t.Fatalf("node%d: exit %d; stderr:\n%s", n, code, tail(k.err.String(), 30))
		}
		var st crawler.Stats
		if err := json.Unmarshal([]byte(k.out.String()), &st); err != nil {
			t.Fatalf("node%d: summary %q: %v", n, k.out.String(), err)
		}
		t.Logf("node%d: fetched %d stored %d duplicates %d", n, st.Fetched, st.Stored, st.Duplicates)
		stored, dups = stored+st.Stored, dups+st.Duplicates
	}
	site.mu.Lock()
	for u, c := range site.count {
		if c != 1 {
			t.Errorf("%s fetched %d times", u, c)
		}
	}
	if len(site.count) != 2*hosts*articles {
		t.Errorf("%d URLs fetched, want %d", len(site.count), 2*hosts*articles)
	}
	site.mu.Unlock()

	recs := map[string]storage.URLRecord{} // URL → record
	recNode := map[string]int{}            // URL → node whose store has its record
	pages := map[storage.DocID][]int{}     // docId → nodes storing its page
	for n, dir := range stores {
		db, err := storage.Open(dir, &storage.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		err = db.ForEachURL(context.Background(), func(r storage.URLRecord) error {
			recs[r.URL], recNode[r.URL] = r, n
			if !r.Duplicate && r.DocID != 0 {
				pages[r.DocID] = append(pages[r.DocID], n)
			}
			return nil
		})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	crossNode := 0
	for i := range articles {
		var doc storage.DocID
		for h, srv := range site.hosts {
			u := srv.URL + "/a/" + strconv.Itoa(i)
			r, ok := recs[u]
			switch {
			case !ok:
				t.Errorf("%s: no URL record in any store", u)
				continue
			case h == 0 || doc == 0:
				doc = r.DocID
			}
			if r.DocID != doc {
				t.Errorf("article %d: %s has docId %s, another copy %s", i, u, r.DocID, doc)
			}
			if !r.Duplicate {
				continue
			}
			owner := pages[r.DocID]
			if len(owner) != 1 {
				continue // reported below
			}
			want := ""
			if owner[0] != recNode[u] {
				want = fmt.Sprintf("node%d", owner[0])
				crossNode++
			}
			if r.Node != want {
				t.Errorf("%s (record on node%d): duplicate of %s names node %q, want %q", u, recNode[u], r.DocID, r.Node, want)
			}
		}
		if n := len(pages[doc]); n != 1 {
			t.Errorf("article %d (docId %s): page stored by %d nodes %v, want 1", i, doc, n, pages[doc])
		}
	}
	for h, srv := range site.hosts {
		for i := range articles {
			u := srv.URL + "/u/" + strconv.Itoa(i)
			if r := recs[u]; r.Duplicate || len(pages[r.DocID]) != 1 {
				t.Errorf("%s (host %d only): record %+v, stored by %v; want its own document stored once", u, h, r, pages[r.DocID])
			}
		}
	}
	if want := int64(hosts*articles + articles); stored != want || dups != int64((hosts-1)*articles) {
		t.Errorf("summaries: %d stored, %d duplicates; want %d and %d", stored, dups, want, (hosts-1)*articles)
	}
	if crossNode == 0 {
		t.Error("no copy found a document stored by another node: the test shows nothing")
	}
	t.Logf("%d articles × %d hosts: one page each; %d copies name a document another node stores", articles, hosts, crossNode)
	// query url shows the node of a cross-node duplicate
	for u, r := range recs {
		if r.Node == "" {
			continue
		}
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"query", "--store", stores[recNode[u]], "url", u}, &out, &errb); code != 0 {
			t.Fatalf("query url %s: exit %d: %s", u, code, errb.String())
		}
		if !strings.Contains(out.String(), "stored by  node "+r.Node) && !strings.Contains(out.String(), "node "+r.Node) {
			t.Errorf("query url %s does not name node %s:\n%s", u, r.Node, out.String())
		}
		out.Reset()
		if code := run(context.Background(), []string{"query", "--store", stores[recNode[u]], "--json", "url", u}, &out, &errb); code != 0 {
			t.Fatalf("query --json url %s: exit %d: %s", u, code, errb.String())
		}
		var j struct {
			URL storage.URLView `json:"url_record"`
		}
		if err := json.Unmarshal(out.Bytes(), &j); err != nil || j.URL.Node != r.Node || j.URL.DocID != r.DocID {
			t.Errorf("query --json url %s: %+v, %v; want node %s, doc %s", u, j.URL, err, r.Node, r.DocID)
		}
		break
	}
	logRedisCost(t, addrs, 2*hosts*articles)
	rdb, err := cluster.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	// the log's tail and its snapshot's chunks (bloomcrawl:{docs}:snap:K)
	ctx := context.Background()
	mem, err := rdb.MemoryUsage(ctx, "bloomcrawl:{docs}:log", 0).Result()
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := rdb.XLen(ctx, "bloomcrawl:{docs}:log").Result()
	chunks, _ := rdb.Get(ctx, "bloomcrawl:{docs}:snap").Int()
	var snap int64
	for k := range chunks {
		b, _ := rdb.MemoryUsage(ctx, fmt.Sprintf("bloomcrawl:{docs}:snap:%d", k), 0).Result()
		snap += b
	}
	judged := 0
	for _, s := range stores {
		judged += len(storeURLs(t, s))
	}
	t.Logf("document log: %d entries left, %d bytes, snapshot %d bytes in %d chunks (MEMORY USAGE): %.0f bytes per URL the stores recorded (%d)",
		entries, mem, snap, chunks, float64(mem+snap)/float64(judged), judged)
}
