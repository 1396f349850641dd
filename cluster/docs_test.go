package cluster

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// TestSnapshotKeepsMalformedEntries: a stream entry whose packed
// documents do not decode (written by something other than a node) is
// moved into the snapshot like any other; read back from it, it is one
// malformed entry (no URL) that the replay counts and skips, and the
// records after it still decode — the snapshot never stops a late node.
func TestSnapshotKeepsMalformedEntries(t *testing.T) {
	good := DocEntry{URL: "http://a.example/", Canonical: "http://a.example/", Sig: []byte{1, 2, 3}, Aliases: []string{"http://a.example/old"}}
	var b []byte
	for _, r := range [][3]string{
		{"1-0", "intruder", "\x7fcut short"}, // documents cut short
		{"2-0", "intruder", ""},              // no documents (an entry without field d)
		{"3-0", "n1", packDocs([]DocEntry{good, good})},
	} {
		b = appendString(b, r[0])
		b = appendString(b, r[1])
		b = appendString(b, r[2])
	}
	got, used := unpackSnap(b)
	if used != len(b) {
		t.Errorf("used %d of %d bytes", used, len(b))
	}
	if len(got) != 4 {
		t.Fatalf("%d entries, want 4: %+v", len(got), got)
	}
	for i, id := range []string{"1-0", "2-0"} {
		if got[i].ID != id || got[i].URL != "" || got[i].Node != "intruder" {
			t.Errorf("entry %d: %+v; want a malformed entry of %s (no URL)", i, got[i], id)
		}
	}
	for i, e := range got[2:] {
		if e.ID != "3-0" || e.Index != i || e.URL != good.URL || string(e.Sig) != string(good.Sig) || len(e.Aliases) != 1 {
			t.Errorf("document %d of 3-0: %+v", i, e)
		}
	}
	// the same in the log itself
	if es := docMessage("4-0", map[string]any{"n": "intruder", "u": "http://old.example/"}); len(es) != 1 || es[0].URL != "" {
		t.Errorf("log entry without documents: %+v; want one malformed entry", es)
	}
}

// TestSnapshotChunks: records split into chunks of at most the given
// packed size read back in order from their compressed chunks; a chunk
// APPENDed by an earlier version (packed records, uncompressed) reads as
// before; a chunk cut short is an error, not records made up.
func TestSnapshotChunks(t *testing.T) {
	var recs [][]byte
	var want []string
	for i := range 50 {
		id := fmt.Sprintf("%d-0", 1000+i)
		d := packDocs([]DocEntry{{URL: fmt.Sprintf("http://a.example/p/%d", i), Sig: bytes.Repeat([]byte{byte(i)}, 145)}})
		b := appendString(nil, id)
		b = appendString(b, "n1")
		recs = append(recs, appendString(b, d))
		want = append(want, id)
	}
	pieces := splitRecords(recs, 1000)
	if len(pieces) < 5 {
		t.Fatalf("%d pieces of at most 1000 bytes for %d records of ~190", len(pieces), len(recs))
	}
	var got []string
	packed, stored := 0, 0
	for _, p := range pieces {
		if len(p) > 1000 {
			t.Errorf("piece of %d bytes", len(p))
		}
		c := encodeChunk(p)
		packed, stored = packed+len(p), stored+len(c)
		es, err := decodeChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			got = append(got, e.ID)
			if e.Node != "n1" || len(e.Sig) != 145 {
				t.Errorf("record %s: %+v", e.ID, e)
			}
		}
		if _, err := decodeChunk(c[:len(c)-3]); err == nil {
			t.Error("a compressed chunk cut short decoded")
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if stored >= packed {
		t.Errorf("compressed chunks %d bytes, packed %d", stored, packed)
	}
	old := bytes.Join(recs[:3], nil) // an uncompressed chunk
	if es, err := decodeChunk(old); err != nil || len(es) != 3 || es[2].ID != want[2] {
		t.Errorf("uncompressed chunk: %v, %v", es, err)
	}
	if _, err := decodeChunk(old[:len(old)-1]); err == nil {
		t.Error("an uncompressed chunk cut short decoded")
	}
}

// TestDocLogEmptiedAtExit: a node that exits normally moves what every
// live node applied into the snapshot first, so the last node out leaves
// no log tail behind (no lease round trims within the test: TTL 1 min),
// and the documents read back from the snapshot in order.
func TestDocLogEmptiedAtExit(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	url := "redis://" + addr + "/0"
	n, err := Open(ctx, Options{URL: url, Node: "a", Partitions: 4, LeaseTTL: time.Minute, Prefix: "ex"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if _, err := n.AppendDoc(ctx, DocEntry{URL: fmt.Sprintf("http://e.example/%d", i), Sig: []byte{byte(i)}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	after := ""
	for {
		es, err := n.ReadDocs(ctx, after, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			break
		}
		after = es[len(es)-1].ID
	}
	n.DocsApplied(after)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	if l, _ := rdb.XLen(ctx, "ex:{docs}:log").Result(); l == 0 {
		t.Fatal("the log is empty before the node exits: nothing to test")
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err := rdb.XLen(ctx, "ex:{docs}:log").Result(); err != nil || l != 0 {
		t.Errorf("the log holds %d entries after its last node exited (%v), want 0", l, err)
	}
	docs, err := ReadDocLog(ctx, rdb, "ex", 1000)
	if err != nil || len(docs) != 50 {
		t.Fatalf("read back %d documents (%v), want 50", len(docs), err)
	}
	for i := 1; i < len(docs); i++ {
		if cmpID(docs[i].ID, docs[i-1].ID) < 0 || docs[i].ID == docs[i-1].ID && docs[i].Index != docs[i-1].Index+1 {
			t.Fatalf("documents out of order at %d: %+v after %+v", i, docs[i], docs[i-1])
		}
	}
}
