package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestCopyKeepsMalformedEntries: a stream entry whose packed documents
// do not decode (written by something other than a node) is kept in a
// node's copy like any other; read back from it, it is one malformed
// entry (no URL) that the replay counts and skips, and the records after
// it still decode — the copy never stops a node.
func TestCopyKeepsMalformedEntries(t *testing.T) {
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

// TestCopyChunks: packed records read back in order from their
// compressed chunk; a chunk cut short, or bytes that are no chunk, are
// an error, not records made up.
func TestCopyChunks(t *testing.T) {
	var b []byte
	var want []string
	for i := range 50 {
		id := fmt.Sprintf("%d-0", 1000+i)
		d := packDocs([]DocEntry{{URL: fmt.Sprintf("http://a.example/p/%d", i), Sig: bytes.Repeat([]byte{byte(i)}, 145)}})
		b = appendString(b, id)
		b = appendString(b, "n1")
		b = appendString(b, d)
		want = append(want, id)
	}
	c := encodeChunk(b)
	es, err := decodeChunk(c)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.ID)
		if e.Node != "n1" || len(e.Sig) != 145 {
			t.Errorf("record %s: %+v", e.ID, e)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if len(c) >= len(b) {
		t.Errorf("compressed chunk %d bytes, packed %d", len(c), len(b))
	}
	if _, err := decodeChunk(c[:len(c)-3]); err == nil {
		t.Error("a chunk cut short decoded")
	}
	if _, err := decodeChunk(b); err == nil {
		t.Error("packed records without the chunk's marker decoded")
	}
}

// docNode opens a node of the test's crawl (prefix dl) that keeps its
// copy of the log in store (nil: none); closed at the test's end.
func docNode(t *testing.T, url, name string, store *storage.DB) *Node {
	t.Helper()
	o := Options{URL: url, Node: name, Partitions: 4, LeaseTTL: 600 * time.Millisecond, Prefix: "dl"}
	if store != nil {
		o.History = store
	}
	n, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func openStore(t *testing.T, dir string) *storage.DB {
	t.Helper()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// replayDocs reads n's log on from after and records n as having
// applied it, as the crawler's replay does; it returns the last entry.
func replayDocs(t *testing.T, n *Node, after string, got *[]DocEntry) string {
	t.Helper()
	for {
		es, err := n.ReadDocs(context.Background(), after, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			n.DocsApplied(after)
			return after
		}
		*got = append(*got, es...)
		after = es[len(es)-1].ID
	}
}

// logDocs appends documents from to to-1 on n, in rounds of several.
func logDocs(t *testing.T, n *Node, from, to int) {
	t.Helper()
	var wg sync.WaitGroup
	for i := from; i < to; i++ {
		wg.Go(func() {
			// 145 bytes of hashes, like a signature with its sketch
			sig := make([]byte, 145)
			r := rand.New(rand.NewPCG(uint64(i), 1))
			for k := range sig {
				sig[k] = byte(r.Uint32())
			}
			if _, err := n.AppendDoc(context.Background(), DocEntry{URL: fmt.Sprintf("http://d.example/%d", i), Sig: sig}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// sameDocs fails the test unless got is want, in the same order.
func sameDocs(t *testing.T, what string, got, want []DocEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d documents, want %d", what, len(got), len(want))
	}
	for i := range want {
		x, y := want[i], got[i]
		if x.ID != y.ID || x.Index != y.Index || x.URL != y.URL || x.Node != y.Node || string(x.Sig) != string(y.Sig) {
			t.Fatalf("%s: document %d is %+v, want %+v", what, i, y, x)
		}
	}
}

// waitLogEmpty waits until the log is trimmed to nothing.
func waitLogEmpty(t *testing.T, rdb redis.UniversalClient, what string) {
	t.Helper()
	for i := 0; ; i++ {
		l, err := rdb.XLen(context.Background(), "dl:{docs}:log").Result()
		if err == nil && l == 0 {
			return
		}
		if i == 200 {
			t.Fatalf("%s: the log still holds %d entries (%v) 10 s after every node applied it", what, l, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// docsMemory sums MEMORY USAGE of the crawl's {docs} keys; keys lists
// them.
func docsMemory(t *testing.T, rdb redis.UniversalClient) (total int64, keys []string) {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "dl:{docs}:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b, err := rdb.MemoryUsage(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		total += b
	}
	return total, keys
}

// TestDocLogBoundedLateJoiner: two nodes log 600 documents (in rounds of
// several) and replay the log; once both have saved everything to their
// stores, the lease rounds trim the log to nothing and Redis holds no
// bytes per document for it (MEMORY USAGE of the {docs} keys). A third
// node that starts then on an empty store gets the 600 documents from a
// live node's copy through the transfer window (chunks cut to 8 KB
// here, so there are many), in the order the first nodes read them, then the next 100 from the
// log; the transfer leaves no key behind, the log is trimmed again as
// all three apply, and the third node's own copy holds all 700.
func TestDocLogBoundedLateJoiner(t *testing.T) {
	defer func(m int) { historyChunkMax = m }(historyChunkMax)
	historyChunkMax = 8 << 10
	addr := redistest.Start(t)
	ctx := context.Background()
	url := "redis://" + addr + "/0"
	sa, sb, sc := openStore(t, t.TempDir()), openStore(t, t.TempDir()), openStore(t, t.TempDir())
	a, b := docNode(t, url, "a", sa), docNode(t, url, "b", sb)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	before, _ := docsMemory(t, rdb)
	var seenA, seenB []DocEntry
	lastA, lastB := "", ""
	entries := int64(0)
	for r := range 3 {
		logDocs(t, a, r*200, r*200+100)
		logDocs(t, b, r*200+100, r*200+200)
		lastA, lastB = replayDocs(t, a, lastA, &seenA), replayDocs(t, b, lastB, &seenB)
		l, _ := rdb.XLen(ctx, "dl:{docs}:log").Result()
		entries += l
		waitLogEmpty(t, rdb, fmt.Sprintf("round %d", r))
	}
	sameDocs(t, "b's replay", seenB, seenA)
	if len(seenA) != 600 {
		t.Fatalf("a read %d documents, want 600", len(seenA))
	}
	after, keys := docsMemory(t, rdb)
	// what stays is a few small keys (the empty stream, the positions,
	// the last entry trimmed, the dedup rules), none growing per page
	if after > 2048 {
		t.Errorf("Redis holds %d bytes for the document log's keys %v after 600 documents were trimmed, want at most 2 KB", after, keys)
	}
	copied := a.hist.bytes.Load()
	t.Logf("600 documents in %d log entries, all saved: log trimmed to 0 entries; {docs} keys %d bytes before, %d after (%v); a's copy %d bytes (%.0f per document)",
		entries, before, after, keys, copied, float64(copied)/600)

	c := docNode(t, url, "c", sc)
	var seenC []DocEntry
	start := time.Now()
	lastC := replayDocs(t, c, "", &seenC)
	sameDocs(t, "the late node's catch-up", seenC, seenA)
	t.Logf("the late node caught up on 600 documents from a live node in %s", time.Since(start).Round(time.Millisecond))
	if n, err := rdb.Exists(ctx, "dl:{docs}:want", "dl:{docs}:xfer:c", "dl:{docs}:xfer:c:by").Result(); err != nil || n != 0 {
		t.Errorf("%d transfer keys left in Redis (%v), want 0", n, err)
	}

	logDocs(t, a, 600, 700)
	lastA, lastB, lastC = replayDocs(t, a, lastA, &seenA), replayDocs(t, b, lastB, &seenB), replayDocs(t, c, lastC, &seenC)
	sameDocs(t, "the late node, then from the log", seenC, seenA)
	if len(seenC) != 700 {
		t.Fatalf("the late node read %d documents, want 700", len(seenC))
	}
	waitLogEmpty(t, rdb, "all three applied")
	for i := 0; ; i++ {
		c.docs.mu.Lock()
		saved := c.docs.saved
		c.docs.mu.Unlock()
		if saved == lastC {
			break
		}
		if i == 200 {
			t.Fatalf("the late node saved up to %s, not %s", saved, lastC)
		}
		time.Sleep(50 * time.Millisecond)
	}
	copyC, err := ReadDocHistory(sc, 1000)
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, "the late node's own copy", copyC, seenA)
}

// TestDocLogRestartOwnStore: a node that starts again on its own store
// replays its copy and reads the log's tail after it, with no other node
// live: the same documents in the same order. Its copy of another
// crawl's log (another epoch) is discarded, not replayed.
func TestDocLogRestartOwnStore(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	url := "redis://" + addr + "/0"
	dirA, dirB := t.TempDir(), t.TempDir()
	sa, sb := openStore(t, dirA), openStore(t, dirB)
	a, b := docNode(t, url, "a", sa), docNode(t, url, "b", sb)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	var seenA, seenB []DocEntry
	logDocs(t, a, 0, 150)
	logDocs(t, b, 150, 300)
	lastA := replayDocs(t, a, "", &seenA)
	replayDocs(t, b, "", &seenB)
	waitLogEmpty(t, rdb, "both applied")
	a.Close()
	b.Close()
	// a tail: documents logged by a node that keeps no copy
	w := docNode(t, url, "w", nil)
	logDocs(t, w, 300, 350)
	w.Close()
	if l, _ := rdb.XLen(ctx, "dl:{docs}:log").Result(); l == 0 {
		t.Fatal("no tail in the log")
	}
	w2 := docNode(t, url, "w2", nil) // the tail, read by a node without a copy
	replayDocs(t, w2, lastA, &seenA)
	w2.Close()

	sb.Close()
	sb = openStore(t, dirB)
	b2 := docNode(t, url, "b", sb)
	var seenB2 []DocEntry
	replayDocs(t, b2, "", &seenB2)
	sameDocs(t, "b again on its store, alone", seenB2, seenA)
	if len(seenB2) != 350 {
		t.Fatalf("b read %d documents, want 350", len(seenB2))
	}
	b2.Close()

	// the same store under another crawl: its copy is not replayed
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	sb.Close()
	sb = openStore(t, dirB)
	b3 := docNode(t, url, "b", sb)
	var fresh []DocEntry
	replayDocs(t, b3, "", &fresh)
	if len(fresh) != 0 {
		t.Errorf("a node of a new crawl read %d documents from its store's copy of another crawl's log", len(fresh))
	}
	if st, _ := sb.DocLogState(); st != nil {
		t.Errorf("the copy of the other crawl's log is still there: state %q", st)
	}
}

// TestDocLogNoPeer: a node on an empty store that finds the log trimmed
// and no live node to send the history stops with an error that says
// what it needs, and withdraws its request.
func TestDocLogNoPeer(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	url := "redis://" + addr + "/0"
	a := docNode(t, url, "a", openStore(t, t.TempDir()))
	logDocs(t, a, 0, 40)
	var seen []DocEntry
	replayDocs(t, a, "", &seen)
	a.Close() // the last node out trims the log to nothing
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	if l, _ := rdb.XLen(ctx, "dl:{docs}:log").Result(); l != 0 {
		t.Fatalf("the log holds %d entries after its last node exited, want 0", l)
	}
	c := docNode(t, url, "c", openStore(t, t.TempDir()))
	start := time.Now()
	_, err := c.ReadDocs(ctx, "", 50)
	var np *NoPeerError
	if !errors.As(err, &np) || !strings.Contains(err.Error(), "start a node that has this crawl's store") || !strings.Contains(err.Error(), "no copy") {
		t.Fatalf("ReadDocs with the log trimmed and no peer: %v; want a *NoPeerError saying what to start", err)
	}
	if waited := time.Since(start); waited < c.claimWait() || waited > c.claimWait()+5*time.Second {
		t.Errorf("gave up after %s, want about %s", waited, c.claimWait())
	}
	if n, _ := rdb.HLen(ctx, "dl:{docs}:want").Result(); n != 0 {
		t.Errorf("%d requests left in Redis", n)
	}
	t.Log(err)
}

// TestDocLogEmptiedAtExit: a node that exits normally saves what it
// applied and trims what every live node saved first, so the last node
// out leaves no log tail behind (no lease round trims within the test:
// TTL 1 min), and its store's copy holds the documents in order.
func TestDocLogEmptiedAtExit(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	url := "redis://" + addr + "/0"
	store := openStore(t, t.TempDir())
	n, err := Open(ctx, Options{URL: url, Node: "a", Partitions: 4, LeaseTTL: time.Minute, Prefix: "ex", History: store})
	if err != nil {
		t.Fatal(err)
	}
	logDocsPrefix := func() {
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Go(func() {
				if _, err := n.AppendDoc(ctx, DocEntry{URL: fmt.Sprintf("http://e.example/%d", i), Sig: []byte{byte(i)}}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	logDocsPrefix()
	var seen []DocEntry
	replayDocs(t, n, "", &seen)
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
	docs, err := ReadDocHistory(store, 1000)
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, "the node's copy", docs, seen)
	if len(docs) != 50 {
		t.Fatalf("the copy holds %d documents, want 50", len(docs))
	}
}

// TestTransferWindow: a node sending its copy to a joiner that takes
// nothing stops at windowMax chunks in the window and waits; taken one
// at a time, the window never holds more, and the chunks and the closing
// item give the sender's copy, all of it, up to the entry it names. A
// sender that closes mid-transfer adds an item saying so.
func TestTransferWindow(t *testing.T) {
	defer func(m int) { historyChunkMax = m }(historyChunkMax)
	historyChunkMax = 2 << 10
	addr := redistest.Start(t)
	ctx := context.Background()
	store := openStore(t, t.TempDir())
	s := docNode(t, "redis://"+addr+"/0", "s", store)
	for r := range 12 { // 12 log entries at least, each a chunk of its own
		logDocs(t, s, r*20, r*20+20)
	}
	var seen []DocEntry
	last := replayDocs(t, s, "", &seen)
	if err := s.saveDocs(); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	// j: a live node (heartbeat an hour ahead) asking for the history
	if err := rdb.ZAdd(ctx, "dl:nodes", redis.Z{Score: float64(time.Now().Add(time.Hour).UnixMilli()), Member: "j"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, "dl:{docs}:want", "j", "0-0").Err(); err != nil {
		t.Fatal(err)
	}
	s.offerHistory(ctx, map[string]string{"j": "0-0"})
	if !s.hist.serving.Load() {
		t.Fatal("the node did not claim the request")
	}
	list := "dl:{docs}:xfer:j"
	for i := 0; ; i++ {
		if l, _ := rdb.LLen(ctx, list).Result(); l == windowMax {
			break
		}
		if i == 100 {
			l, _ := rdb.LLen(ctx, list).Result()
			by, _ := rdb.Get(ctx, list+":by").Result()
			w, _ := rdb.HGetAll(ctx, "dl:{docs}:want").Result()
			t.Fatalf("the window did not fill to %d chunks in 5 s: %d, by %q, want %v, serving %v", windowMax, l, by, w, s.hist.serving.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if l, _ := rdb.LLen(ctx, list).Result(); l != windowMax {
		t.Fatalf("the window holds %d items with nothing taken, want %d", l, windowMax)
	}
	var got []DocEntry
	chunks := 0
	for {
		if l, _ := rdb.LLen(ctx, list).Result(); l > windowMax {
			t.Fatalf("the window holds %d items", l)
		}
		item, err := rdb.BLPop(ctx, 5*time.Second, list).Result()
		if err != nil {
			t.Fatalf("after %d chunks: %v", chunks, err)
		}
		b := []byte(item[1])
		if b[0] == 'e' {
			if string(b[1:]) != last {
				t.Errorf("the transfer covers up to %s, want %s", b[1:], last)
			}
			break
		}
		nl := bytes.IndexByte(b, '\n')
		if b[0] != 'c' || nl < 0 {
			t.Fatalf("item %d: %q…, want a chunk item", chunks, b[:min(len(b), 20)])
		}
		// each chunk names the one before it: the joiner can tell one
		// is missing
		if prev, want := string(b[1:nl]), "0-0"; chunks > 0 && prev != got[len(got)-1].ID || chunks == 0 && prev != want {
			t.Errorf("chunk %d follows %s, want the last entry before it", chunks, prev)
		}
		es, err := decodeChunk(b[nl+1:])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, es...)
		chunks++
	}
	sameDocs(t, "the chunks sent", got, seen)
	if chunks <= windowMax {
		t.Errorf("%d chunks sent, want more than the window (%d)", chunks, windowMax)
	}
	rdb.Del(ctx, list, list+":by")

	// a sender that closes mid-transfer says so past the full window, so
	// that its joiner asks again at once
	for i := 0; s.hist.serving.Load(); i++ {
		if i == 100 {
			t.Fatal("the sender is still sending after its last item")
		}
		time.Sleep(10 * time.Millisecond)
	}
	rdb.ZAdd(ctx, "dl:nodes", redis.Z{Score: float64(time.Now().Add(time.Hour).UnixMilli()), Member: "k"})
	rdb.HSet(ctx, "dl:{docs}:want", "k", "0-0")
	s.offerHistory(ctx, map[string]string{"k": "0-0"})
	list = "dl:{docs}:xfer:k"
	for i := 0; ; i++ {
		if l, _ := rdb.LLen(ctx, list).Result(); l == windowMax {
			break
		}
		if i == 100 {
			t.Fatalf("the window for k did not fill to %d chunks in 5 s", windowMax)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Close()
	items, _ := rdb.LRange(ctx, list, 0, -1).Result()
	if len(items) != windowMax+1 || !strings.HasPrefix(items[windowMax], "xs is stopping") {
		last := ""
		if len(items) > 0 {
			last = items[len(items)-1][:min(20, len(items[len(items)-1]))]
		}
		t.Errorf("after the sender closed the window holds %d items, the last %q; want %d, the last saying it stopped", len(items), last, windowMax+1)
	}
}

// TestTransferGap: a chunk of the history that did not come (Redis lost
// it in a restart while the sender pushed on) ends the transfer instead
// of being skipped over: the joiner takes the chunk before the gap, then
// asks again from where it is.
func TestTransferGap(t *testing.T) {
	defer func(m int) { historyChunkMax = m }(historyChunkMax)
	historyChunkMax = 2 << 10
	addr := redistest.Start(t)
	ctx := context.Background()
	s := docNode(t, "redis://"+addr+"/0", "s", openStore(t, t.TempDir()))
	for r := range 4 {
		logDocs(t, s, r*20, r*20+20)
	}
	var seen []DocEntry
	replayDocs(t, s, "", &seen)
	if err := s.saveDocs(); err != nil {
		t.Fatal(err)
	}
	var keys, chunks [][]byte
	for k := idKey("0-0"); len(keys) < 3; {
		next, c, err := s.o.History.DocLogAfter(k)
		if err != nil || next == nil {
			t.Fatalf("the sender's copy: %d chunks, %v", len(keys), err)
		}
		keys, chunks, k = append(keys, next), append(chunks, c), next
	}
	j := docNode(t, "redis://"+addr+"/0", "j", openStore(t, t.TempDir()))
	if err := j.requestHistory(ctx, "0-0", "1-0"); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	list := "dl:{docs}:xfer:j"
	rdb.Set(ctx, list+":by", "s", time.Minute)
	// the first chunk, then the third: the second was lost
	rdb.RPush(ctx, list, append([]byte("c0-0\n"), chunks[0]...), append([]byte("c"+keyID(keys[1])+"\n"), chunks[2]...))
	first, err := j.receive(ctx, "0-0")
	if err != nil || len(first) == 0 || first[len(first)-1].ID != keyID(keys[0]) {
		t.Fatalf("the first chunk: %d documents, %v", len(first), err)
	}
	got, err := j.receive(ctx, first[len(first)-1].ID)
	if err != nil || got != nil {
		t.Fatalf("after the gap: %d documents, %v; want none (the transfer ended)", len(got), err)
	}
	if j.docs.receiving() {
		t.Error("the joiner still receives after the gap")
	}
	if w, _ := rdb.HGetAll(ctx, "dl:{docs}:want").Result(); len(w) != 0 {
		t.Errorf("requests after the gap: %v; want the old one withdrawn (the joiner asks again from where it is)", w)
	}
}
