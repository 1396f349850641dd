package crawler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/lab/dedupeval"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// evalDocs is a near-duplicate evaluation set: every article of the
// sample site (English and Chinese), whole and each half, as pages of
// their own, and three near-duplicate variants of each (dedupeval:
// header/footer, date line, ad block, edits, moved paragraph,
// truncation), shuffled; the variants carry other hosts' URLs.
func evalDocs(t testing.TB) []dedupeval.Doc {
	t.Helper()
	var all []dedupeval.Doc
	for _, lang := range []string{"en", "zh"} {
		files, err := filepath.Glob(filepath.Join("..", "internal", "samplesite", "content", lang, "*.txt"))
		if err != nil || len(files) == 0 {
			t.Fatalf("sample articles for %s: %v (%d files)", lang, err, len(files))
		}
		var pages []dedupeval.Doc
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			blocks := strings.Split(strings.TrimSpace(string(b)), "\n\n")
			title, paras := blocks[0], blocks[1:]
			slug := strings.TrimSuffix(filepath.Base(f), ".txt")
			h := len(paras) / 2
			pages = append(pages,
				dedupeval.Doc{URL: "https://" + lang + ".example/" + slug, Title: title, Text: strings.Join(paras, "\n")},
				dedupeval.Doc{URL: "https://" + lang + ".example/" + slug + "/1", Title: title + " (1)", Text: strings.Join(paras[:h], "\n")},
				dedupeval.Doc{URL: "https://" + lang + ".example/" + slug + "/2", Title: title + " (2)", Text: strings.Join(paras[h:], "\n")})
		}
		docs := dedupeval.NewGenerator(lang, 7).Generate(pages, 3)
		for i := range docs {
			docs[i].URL = fmt.Sprintf("%s?doc=%s%d", docs[i].URL, lang, i) // unique
		}
		all = append(all, docs...)
	}
	return all
}

// testNode is one cluster node's content dedup: a cluster.Node on the
// test's Redis and its own deduper.
func testNode(t *testing.T, addr, prefix, name string) *clusterDedup {
	t.Helper()
	n, err := cluster.Open(context.Background(), cluster.Options{URL: "redis://" + addr + "/0", Node: name, Partitions: 4, LeaseTTL: 2 * time.Second, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	dd, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cd := newClusterDedup(n, dd, nil)
	if _, err := cd.start(context.Background(), "test"); err != nil {
		t.Fatal(err)
	}
	return cd
}

// clusterCheck judges doc on node cd as redisDocs.judge does.
func clusterCheck(t *testing.T, cd *clusterDedup, d dedupeval.Doc) contentdedup.Verdict {
	sig, sim := cd.dd.Prepare(d.Title, d.Text)
	v, _, err := cd.check(context.Background(), d.URL, "", sig, sim, nil)
	if err != nil {
		t.Error(err)
	}
	return v
}

// TestClusterDedupEqualsOneNode runs one near-duplicate set (evalDocs)
// through one deduper and through three cluster nodes (each its own
// deduper, one Redis):
//   - three nodes taking turns over the documents in order give exactly
//     the one node's verdicts (docId, duplicate or not, reason) for every
//     document, so the same precision and recall;
//   - three nodes judging a third each at the same time (two workers per
//     node) give, for every document, exactly the verdict one deduper
//     gives on the documents in the cluster's log order; every docId is
//     new exactly once in the whole cluster (no document stored by two
//     nodes); precision and recall against exact shingle truth are logged
//     beside the one node's (they differ only by the order).
func TestClusterDedupEqualsOneNode(t *testing.T) {
	addr := redistest.Start(t)
	docs := evalDocs(t)
	sets := make([][]uint64, len(docs))
	for i, d := range docs {
		sets[i] = dedupeval.Shingles(d.Text, 4)
	}
	truth := dedupeval.PairsAbove(sets, 0.9)
	one, _ := contentdedup.New(contentdedup.Options{})
	want := make([]contentdedup.Verdict, len(docs))
	labels := make([]uint64, len(docs))
	for i, d := range docs {
		want[i] = one.Check(d.URL, d.Title, d.Text)
		labels[i] = want[i].DocID
	}
	s1 := dedupeval.Evaluate("one node", labels, sets, truth)
	t.Logf("%d documents, %d pairs with J >= 0.9: one node precision %.4f recall %.4f (%d documents stored)", len(docs), len(truth), s1.Precision, s1.Recall, s1.Clusters)
	// what the order alone does on one node: 10 random orders
	r := rand.New(rand.NewPCG(1, 2))
	minR, maxR, minP, maxP := 1.0, 0.0, 1.0, 0.0
	for range 10 {
		dd, _ := contentdedup.New(contentdedup.Options{})
		l := make([]uint64, len(docs))
		for _, i := range r.Perm(len(docs)) {
			l[i] = dd.Check(docs[i].URL, docs[i].Title, docs[i].Text).DocID
		}
		sc := dedupeval.Evaluate("one node, shuffled", l, sets, truth)
		minR, maxR, minP, maxP = min(minR, sc.Recall), max(maxR, sc.Recall), min(minP, sc.Precision), max(maxP, sc.Precision)
	}
	t.Logf("one node on 10 random orders: precision %.4f-%.4f, recall %.4f-%.4f", minP, maxP, minR, maxR)

	t.Run("turns", func(t *testing.T) {
		nodes := []*clusterDedup{testNode(t, addr, "turns", "a"), testNode(t, addr, "turns", "b"), testNode(t, addr, "turns", "c")}
		for i, d := range docs {
			v := clusterCheck(t, nodes[i%3], d)
			if v.DocID != want[i].DocID || v.Duplicate != want[i].Duplicate || v.Reason != want[i].Reason || v.Distance != want[i].Distance {
				t.Errorf("document %d (%s): cluster %+v, one node %+v", i, d.URL, v, want[i])
			}
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		nodes := []*clusterDedup{testNode(t, addr, "conc", "a"), testNode(t, addr, "conc", "b"), testNode(t, addr, "conc", "c")}
		got := make([]contentdedup.Verdict, len(docs))
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				for i := w; i < len(docs); i += 6 {
					got[i] = clusterCheck(t, nodes[w%3], docs[i])
				}
			})
		}
		wg.Wait()
		// the log order, read back; one deduper replays it
		var order []cluster.DocEntry
		for {
			b, err := nodes[0].log.ReadDocs(context.Background(), lastID(order), 1000)
			if err != nil {
				t.Fatal(err)
			}
			order = append(order, b...)
			if len(b) < 1000 {
				break
			}
		}
		if len(order) != len(docs) {
			t.Fatalf("log holds %d entries, want %d", len(order), len(docs))
		}
		byURL := map[string]int{}
		for i, d := range docs {
			byURL[d.URL] = i
		}
		ref, _ := contentdedup.New(contentdedup.Options{})
		news := map[uint64]int{}
		labels := make([]uint64, len(docs))
		for _, e := range order {
			i := byURL[e.URL]
			d := docs[i]
			w := ref.Check(d.URL, d.Title, d.Text)
			if v := got[i]; v.DocID != w.DocID || v.Duplicate != w.Duplicate || v.Reason != w.Reason || v.Distance != w.Distance {
				t.Errorf("document %d (%s): cluster %+v, one node on the log order %+v", i, d.URL, v, w)
			}
			if !got[i].Duplicate {
				news[got[i].DocID]++
			}
			labels[i] = got[i].DocID
		}
		for i, v := range got {
			if news[v.DocID] != 1 {
				t.Errorf("document %d: docId %016x new %d times in the cluster, want once", i, v.DocID, news[v.DocID])
			}
		}
		s3 := dedupeval.Evaluate("three nodes", labels, sets, truth)
		t.Logf("three nodes at once: precision %.4f recall %.4f (%d documents stored); one node in the documents' order: %.4f %.4f (%d)",
			s3.Precision, s3.Recall, s3.Clusters, s1.Precision, s1.Recall, s1.Clusters)
	})
}

func lastID(es []cluster.DocEntry) string {
	if len(es) == 0 {
		return ""
	}
	return es[len(es)-1].ID
}

// TestClusterDedupRefetchAfterCrash: node a judges page P (a new
// document in the log) and dies before storing it; P is fetched again by
// node b, whose verdict is then P's own document by the URL step: b
// stores P under that docId (redisDocs.judge makes it new again), every
// node's replay records b as the node storing it, so a near-duplicate
// judged later on node c names b. Once b's store has the page, a third
// fetch of P is not stored again.
func TestClusterDedupRefetchAfterCrash(t *testing.T) {
	addr := redistest.Start(t)
	text := strings.Repeat("lantern harbor orchard meadow signal copper winter garden pilot marble thunder violet ", 20)
	a := testNode(t, addr, "crash", "a")
	first := clusterCheck(t, a, dedupeval.Doc{URL: "https://x.example/p", Title: "P", Text: text})
	if first.Duplicate {
		t.Fatalf("first judgement of P: %+v, want new", first)
	}
	db, err := storage.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := testNode(t, addr, "crash", "b")
	d := &redisDocs{cd: b, dd: b.dd, store: db}
	judge := func() (contentdedup.Verdict, storage.URLRecord) {
		var rec storage.URLRecord
		v, err := d.judge(context.Background(), frontier.Entry{URL: "https://x.example/p"}, &job{}, &rec, &Document{Title: "P", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return v, rec
	}
	v, rec := judge()
	if v.Duplicate || v.Reason != contentdedup.ReasonNew || v.DocID != first.DocID || rec.Node != "" {
		t.Fatalf("P fetched again on b: %+v (record node %q); want new, docId %016x", v, rec.Node, first.DocID)
	}
	sig, _ := b.dd.Prepare("P", text)
	if _, err := db.Commit(context.Background(), storage.Commit{Page: &storage.Page{DocID: storage.DocID(v.DocID), URL: "https://x.example/p", Title: "P", Text: text,
		TitleFP: sig.Title, ContentFP: sig.Content, FPFlags: sig.Flags, Sketch: sig.Sketch.Bytes(), FetchedAt: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	if v, _ := judge(); !v.Duplicate || v.DocID != first.DocID {
		t.Errorf("P fetched a third time, its page in b's store: %+v; want a duplicate of %016x", v, first.DocID)
	}
	n3 := testNode(t, addr, "crash", "c") // replays the whole log at start
	sig2, sim2 := n3.dd.Prepare("P copy", text+" one more line")
	v2, node, err := n3.check(context.Background(), "https://y.example/p", "", sig2, sim2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !v2.Duplicate || v2.DocID != first.DocID || node != "b" {
		t.Errorf("near-duplicate of P on node c: %+v, node %q; want docId %016x stored by b", v2, node, first.DocID)
	}
}

// pieceLog records the most entries one reply of the document log gave.
type pieceLog struct {
	docLog
	most int
}

func (p *pieceLog) ReadDocs(ctx context.Context, after string, limit int) ([]cluster.DocEntry, error) {
	es, err := p.docLog.ReadDocs(ctx, after, limit)
	p.most = max(p.most, len(es))
	return es, err
}

// TestClusterDedupCatchUpInPieces: node a idles while node b logs 25
// pages; a's next page gets the backlog in pieces of at most its batch
// (4 here), not in one reply, and every verdict on both nodes equals one
// deduper's on the same order.
func TestClusterDedupCatchUpInPieces(t *testing.T) {
	addr := redistest.Start(t)
	docs := evalDocs(t)[:40]
	one, _ := contentdedup.New(contentdedup.Options{})
	want := make([]contentdedup.Verdict, len(docs))
	for i, d := range docs {
		want[i] = one.Check(d.URL, d.Title, d.Text)
	}
	a, b := testNode(t, addr, "pieces", "a"), testNode(t, addr, "pieces", "b")
	pl := &pieceLog{docLog: a.log}
	a.log, a.batch = pl, 4
	for i, d := range docs {
		cd := b
		if i == 25 || i >= 30 && i%2 == 0 {
			cd = a
		}
		v := clusterCheck(t, cd, d)
		if v.DocID != want[i].DocID || v.Duplicate != want[i].Duplicate || v.Reason != want[i].Reason {
			t.Errorf("document %d (%s) on node %s: %+v, one node %+v", i, d.URL, cd.node, v, want[i])
		}
	}
	if pl.most == 0 || pl.most > 4 {
		t.Errorf("node a read up to %d entries in one reply, want 1 to 4", pl.most)
	}
}
