package cluster

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// BenchmarkSaveDocs: what a node spends per page on its copy of the log
// (keeping the entry, packing, zstd, one store write per round of 10,000
// pages, about a lease round's at 3,000 pages/s): ns/op is per page.
//
//	cd cluster && go test -run '^$' -bench BenchmarkSaveDocs -benchtime 200000x
func BenchmarkSaveDocs(b *testing.B) {
	db, err := storage.Open(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	n := &Node{o: Options{History: db, Prefix: "b"}, epoch: "e"}
	n.docs.keeps = true
	r := rand.New(rand.NewPCG(1, 2))
	round := make([]DocEntry, 10_000)
	for i := range round {
		sig := make([]byte, 145)
		for k := range sig {
			sig[k] = byte(r.Uint32())
		}
		round[i] = DocEntry{Index: i % 20, Node: "node0", URL: fmt.Sprintf("http://127.0.0.%d:8080/p/%d.html", 2+i%12, i), Sig: sig}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		k := min(len(round), b.N-i)
		es := make([]DocEntry, k)
		for j := range es {
			es[j] = round[j]
			es[j].ID = fmt.Sprintf("%d-%d", 1+(i+j)/20, 0)
		}
		for j := 0; j < k; j += 20 {
			n.docs.keep(es[j:min(j+20, k)])
		}
		n.DocsApplied(es[k-1].ID)
		if err := n.saveDocs(); err != nil {
			b.Fatal(err)
		}
		i += k
	}
	b.ReportMetric(float64(n.hist.bytes.Load())/float64(b.N), "B/page")
}
