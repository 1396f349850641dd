package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/redis/go-redis/v9"
)

// TestJournalGivesBackLostSecond: Redis (appendfsync everysec) comes back
// from a crash without what it was told in its last moments (its
// append-only directory copied, then put back): an acknowledgement, two
// admissions (one of them fetched and acknowledged too), a document-log
// entry, a refresh's due time. The node finds the new run_id at its next
// connection and offers its journal again: the acknowledged entry is gone
// from the stream, the URL admitted only is queued again, the URL
// admitted and acknowledged is seen but not queued, the document-log
// entry is back under its own ID, the due time is back, and the node's
// lease tokens are unchanged.
func TestJournalGivesBackLostSecond(t *testing.T) {
	r := redistest.StartRestartable(t, "--appendonly", "yes", "--appendfsync", "everysec")
	url := "redis://" + r.Addr + "/0"
	ctx := context.Background()
	var logs syncBuf
	a, err := Open(ctx, Options{URL: url, Node: "a", Partitions: 8, LeaseTTL: 600 * time.Millisecond, Capacity: 100_000, RedisWait: 10 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	tasks := admitAndTake(t, a, 2)
	tokens := map[int]int64{}
	for _, p := range a.Held() {
		tokens[p] = a.token(p)
	}
	saved, err := r.SaveAOF()
	if err != nil {
		t.Fatal(err)
	}

	// the moments Redis will lose
	if err := a.Ack(ctx, tasks[0]); err != nil {
		t.Fatal(err)
	}
	queued, done := "http://lost.net/queued", "http://lost.net/done"
	if n, err := a.Admit(ctx, []Item{{URL: queued}, {URL: done}}); err != nil || n != 2 {
		t.Fatalf("admit: %d, %v", n, err)
	}
	var doneTask *Task
	for i := 0; doneTask == nil; i++ {
		if i == 100 {
			t.Fatal("the admitted URL was not handed out in 5 s")
		}
		tk, err := a.Take(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range tk {
			if x.URL == done {
				doneTask = &x
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := a.Ack(ctx, *doneTask); err != nil {
		t.Fatal(err)
	}
	ref, err := a.AppendDoc(ctx, DocEntry{URL: "http://lost.net/doc", Sig: []byte("sig")})
	if err != nil {
		t.Fatal(err)
	}
	due := time.UnixMilli(time.Now().Add(time.Hour).UnixMilli())
	if _, err := a.ScheduleAfter(nil, []Scheduled{{URL: done, Due: due, Record: "rec"}}).Wait(ctx); err != nil {
		t.Fatal(err)
	}

	if err := r.RestartFrom(saved, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	raw := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer raw.Close()
	for i := 0; a.Recoveries() == 0; i++ {
		if i == 100 {
			t.Fatal("the node did not re-offer its journal in 5 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// what the recovery found lost and gave back
	for _, want := range []string{"acks_redone=1", "acked_urls_marked_seen=1", "urls_queued_again=1", "doc_entries_restored=1", "doc_entries_appended_again=0", "refreshes_restored=1", "leases_lost=0"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the recovery's log lacks %s:\n%s", want, logs.String())
		}
	}

	t0 := tasks[0]
	if es, err := raw.XRange(ctx, a.key(t0.Partition, "q"), t0.ID, t0.ID).Result(); err != nil || len(es) != 0 {
		t.Errorf("the acknowledged entry %s is in its stream again: %v, %v", t0.ID, es, err)
	}
	p := a.Partition("lost.net")
	es, err := raw.XRange(ctx, a.key(p, "q"), "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, e := range es {
		u, _ := e.Values["u"].(string)
		got[u]++
	}
	if got[queued] != 1 || got[done] != 0 {
		t.Errorf("partition %d's stream holds %s %d times and %s %d times; want 1 and 0", p, queued, got[queued], done, got[done])
	}
	b, err := Open(ctx, Options{URL: url, Node: "b", Partitions: 8, LeaseTTL: 600 * time.Millisecond, Capacity: 100_000, RedisWait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if n, err := b.Admit(ctx, []Item{{URL: queued}, {URL: done}}); err != nil || n != 0 {
		t.Errorf("another node admitting the two URLs again queued %d (%v), want 0: both are seen", n, err)
	}
	if es, err := raw.XRange(ctx, a.docKey("log"), ref.ID, ref.ID).Result(); err != nil || len(es) != 1 {
		t.Errorf("document-log entry %s: %d entries under its ID after the recovery (%v), want 1", ref.ID, len(es), err)
	}
	if at, err := raw.ZScore(ctx, a.key(p, "due"), done).Result(); err != nil || int64(at) != due.UnixMilli() {
		t.Errorf("%s's refresh: due %v (%v), want %d", done, at, err, due.UnixMilli())
	}
	if rec, _ := raw.HGet(ctx, a.key(p, "rec"), done).Result(); rec != "rec" {
		t.Errorf("%s's refresh record %q, want rec", done, rec)
	}
	if !a.jr.committed(doneTask.Item) {
		t.Errorf("%s is not remembered as committed here", done)
	}
	for p, tok := range tokens {
		if got := a.token(p); got != tok {
			t.Errorf("partition %d: token %d after the recovery, %d before", p, got, tok)
		}
	}
	// the counters agree with the stream: what is queued and not done is
	// in the streams
	var added, acked, length int64
	for p := range 8 {
		x, _ := raw.Get(ctx, a.key(p, "added")).Int64()
		y, _ := raw.Get(ctx, a.key(p, "acked")).Int64()
		l, _ := raw.XLen(ctx, a.key(p, "q")).Result()
		added, acked, length = added+x, acked+y, length+l
	}
	if added-acked != length {
		t.Errorf("counters: %d queued, %d done, but %d entries in the streams", added, acked, length)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRestoreLease: a node re-offering its lease after a restart gets it
// back when Redis lost its acquisition (counter below its token) or kept
// it (counter at its token, holder itself), and loses it when another
// node acquired it since (counter above, or at its token with another
// holder): no two nodes hold a partition under one token.
func TestRestoreLease(t *testing.T) {
	raw := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	defer raw.Close()
	ctx := context.Background()
	n := &Node{o: Options{Prefix: "t"}}
	for i, c := range []struct {
		fence  string // "" none
		holder string
		token  int64
		want   int
	}{
		{"", "", 1, 1},
		{"4", "b", 5, 1},
		{"5", "a", 5, 1},
		{"5", "b", 5, 0},
		{"6", "a", 5, 0},
		{"1048577", "b", 1, 0},
	} {
		keys := n.leaseKeys(i)
		if c.fence != "" {
			raw.Set(ctx, keys[1], c.fence, 0)
			raw.Set(ctx, keys[2], c.holder, 0)
		}
		got, err := restoreLeaseScript.Run(ctx, raw, keys, "a", 60000, c.token).Int()
		if err != nil || got != c.want {
			t.Errorf("counter %q holder %q, token %d: %d, %v; want %d", c.fence, c.holder, c.token, got, err, c.want)
		}
		lease, _ := raw.Get(ctx, keys[0]).Result()
		fence, _ := raw.Get(ctx, keys[1]).Int64()
		if c.want == 1 && (lease != "a" || fence != c.token) {
			t.Errorf("counter %q, token %d: restored lease %q counter %d; want a, %d", c.fence, c.token, lease, fence, c.token)
		}
		if c.want == 0 && lease == "a" {
			t.Errorf("counter %q holder %q, token %d: the lease was given to a", c.fence, c.holder, c.token)
		}
	}
}

// TestRestoreDocs: document-log entries Redis lost are put back under
// their own IDs when they come after the stream's last entry (every
// entry's in-place pass before any is appended anew, so a batch's entry
// appended anew does not push the next batches' out of place); one
// another node appended past is appended anew, and still answers to its
// first ID (DocRef.Is), so that the node waiting for its verdict finds
// it; one in the stream or trimmed from it is left alone; a second node
// re-offering the same lost entries adds none again.
func TestRestoreDocs(t *testing.T) {
	raw := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	defer raw.Close()
	ctx := context.Background()
	n := &Node{o: Options{Prefix: "t"}, rdb: raw}
	doc := func(u string) string { return packDocs([]DocEntry{{URL: u, Sig: []byte("s")}}) }
	rec := func(id, node string) *jrec { return &jrec{kind: jDoc, id: id, node: node, d: doc("http://x/" + id)} }
	logKey, trimKey := n.docKey("log"), n.docKey("trimmed")
	for _, id := range []string{"5-0", "9-0"} {
		if err := raw.XAdd(ctx, &redis.XAddArgs{Stream: logKey, ID: id, Values: []any{"n", "b", "d", doc("http://x/" + id)}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	raw.Set(ctx, trimKey, "4-0", 0) // entries up to 4-0 were trimmed
	lost := []*jrec{rec("3-0", "a"), rec("5-0", "b"), rec("7-0", "a")}
	for i := 11; i < 1200; i++ { // more than one batch
		lost = append(lost, rec(fmt.Sprintf("%d-0", i), "a"))
	}
	inplace, appended, err := n.restoreDocs(ctx, raw, lost)
	if err != nil {
		t.Fatal(err)
	}
	// 11-0 … 1199-0 go in place after 9-0, across batches; 7-0, before
	// 9-0, is appended anew after them
	if inplace != 1189 || appended != 1 {
		t.Errorf("restored in place %d, appended anew %d; want 1189, 1", inplace, appended)
	}
	es, _ := raw.XRange(ctx, logKey, "-", "+").Result()
	if len(es) != 1192 || es[2].ID != "11-0" || es[1190].ID != "1199-0" || es[1191].Values["o"] != "7-0" {
		t.Fatalf("the log after the restore: %d entries", len(es))
	}
	// another node re-offers what it read of the same lost second
	if inplace, appended, err := n.restoreDocs(ctx, raw, []*jrec{rec("7-0", "a"), rec("11-0", "a")}); err != nil || inplace != 0 || appended != 0 {
		t.Errorf("the same entries re-offered again: %d in place, %d anew, %v; want none", inplace, appended, err)
	}
	raw.Del(ctx, logKey, n.docKey("was"))
	raw.XAdd(ctx, &redis.XAddArgs{Stream: logKey, ID: "5-0", Values: []any{"n", "b", "d", doc("http://x/5-0")}})
	if inplace, appended, err := n.restoreDocs(ctx, raw, []*jrec{rec("7-0", "a"), rec("8-0", "a")}); err != nil || inplace != 2 || appended != 0 {
		t.Errorf("after the stream's last entry: %d, %d, %v; want 2 in place", inplace, appended, err)
	}
	raw.XAdd(ctx, &redis.XAddArgs{Stream: logKey, ID: "20-0", Values: []any{"n", "b", "d", doc("http://x/20-0")}})
	if _, _, err := n.restoreDocs(ctx, raw, []*jrec{rec("15-0", "a")}); err != nil {
		t.Fatal(err)
	}
	got, err := n.ReadDocs(ctx, "20-0", 10)
	if err != nil || len(got) != 1 {
		t.Fatalf("entries after 20-0: %v, %v; want the one appended anew", got, err)
	}
	if got[0].URL != "http://x/15-0" || !(DocRef{ID: "15-0"}).Is(got[0]) || got[0].Was != "15-0" {
		t.Errorf("the entry appended anew: %+v; want http://x/15-0 answering to 15-0", got[0])
	}
	// that entry lost in turn and put back keeps its first ID
	id := got[0].ID
	raw.Del(ctx, logKey, n.docKey("was")) // Redis as it was before that entry
	raw.XAdd(ctx, &redis.XAddArgs{Stream: logKey, ID: "20-0", Values: []any{"n", "b", "d", doc("http://x/20-0")}})
	r := docRecs([]redis.XMessage{{ID: id, Values: map[string]any{"n": "a", "d": doc("http://x/15-0"), "o": "15-0"}}})
	if _, _, err := n.restoreDocs(ctx, raw, r); err != nil {
		t.Fatal(err)
	}
	if es, _ := raw.XRange(ctx, logKey, id, id).Result(); len(es) != 1 || es[0].Values["o"] != "15-0" {
		t.Errorf("an entry appended anew, lost and put back: %v; want it under %s with o = 15-0", es, id)
	}
}
