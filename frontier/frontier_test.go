package frontier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"
)

// exactSet is an exact URL filter for tests.
type exactSet struct {
	mu sync.Mutex
	m  map[string]bool
}

func (s *exactSet) TestAndAdd(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]bool{}
	}
	seen := s.m[k]
	s.m[k] = true
	return seen
}

// memQueue is a queue table with the semantics of storage's queue: pending
// entries keyed by seq, scanned in seq order.
type memQueue struct {
	mu      sync.Mutex
	pending map[uint64]Entry
	scans   int
}

func (q *memQueue) commit(add []Entry, done ...uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pending == nil {
		q.pending = map[uint64]Entry{}
	}
	for _, e := range add {
		q.pending[e.Seq] = e
	}
	for _, s := range done {
		delete(q.pending, s)
	}
}

func (q *memQueue) QueueScan(after uint64, limit int) ([]Entry, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.scans++
	var out []Entry
	for _, e := range q.pending {
		if e.Seq > after {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func mustNew(t *testing.T, o Options) *Frontier {
	t.Helper()
	if o.Filter == nil {
		o.Filter = &exactSet{}
	}
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func add(f *Frontier, q *memQueue, depth int, ref string, urls ...string) []Entry {
	var cs []Candidate
	for _, u := range urls {
		cs = append(cs, Candidate{URL: u, Depth: depth, Referrer: ref})
	}
	fresh, _, _ := f.Reserve(context.Background(), cs)
	if q != nil {
		q.commit(fresh)
	}
	f.Publish(fresh)
	return fresh
}

func TestReserveDedupAndLimits(t *testing.T) {
	f := mustNew(t, Options{MaxDepth: 1, MaxPerHost: 3, MaxTotal: 4})
	fresh, tested, _ := f.Reserve(context.Background(), []Candidate{
		{URL: "http://a/1"}, {URL: "http://a/1"}, {URL: "http://a/2", Depth: 2},
		{URL: "http://a/3", Depth: 1}, {URL: "http://a/4"}, {URL: "http://a/5"},
		{URL: "http://b/1"}, {URL: "http://b/2"},
	})
	var got []string
	for _, e := range fresh {
		got = append(got, fmt.Sprintf("%d %s", e.Seq, e.URL))
	}
	want := []string{"1 http://a/1", "2 http://a/3", "3 http://a/4", "4 http://b/1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fresh = %v, want %v", got, want)
	}
	// a/2 is too deep (not tested); a/5 over the host cap, b/2 over the total cap.
	wantTested := []string{"http://a/1", "http://a/1", "http://a/3", "http://a/4", "http://b/1"}
	if fmt.Sprint(tested) != fmt.Sprint(wantTested) {
		t.Errorf("tested = %v, want %v", tested, wantTested)
	}
}

func TestNextOrderAndPerHostParallelism(t *testing.T) {
	f := mustNew(t, Options{MaxDepth: -1, PerHostParallelism: 1})
	add(f, nil, 0, "", "http://a/1", "http://a/2", "http://b/1", "http://a/3", "http://c/1")
	ctx := context.Background()
	var got []string
	var held []Entry
	for i := 0; i < 3; i++ {
		e, err := f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.URL)
		held = append(held, e)
	}
	// One per host at a time: a/1, then b/1 and c/1 (a is busy).
	if want := "[http://a/1 http://b/1 http://c/1]"; fmt.Sprint(got) != want {
		t.Fatalf("order = %v, want %v", got, want)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := f.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next with every host busy: err = %v, want deadline", err)
	}
	f.Done(held[0])
	e, err := f.Next(ctx)
	if err != nil || e.URL != "http://a/2" {
		t.Fatalf("after Done: %v %v, want http://a/2", e.URL, err)
	}
	f.Done(e)
	f.Done(held[1])
	f.Done(held[2])
	e, _ = f.Next(ctx)
	f.Done(e)
	if _, err := f.Next(ctx); !errors.Is(err, ErrExhausted) {
		t.Fatalf("err = %v, want ErrExhausted", err)
	}
}

func TestDelayPerHost(t *testing.T) {
	const delay = 30 * time.Millisecond
	f := mustNew(t, Options{MaxDepth: -1, Delay: delay})
	add(f, nil, 0, "", "http://a/1", "http://a/2", "http://a/3")
	ctx := context.Background()
	var times []time.Time
	for {
		e, err := f.Next(ctx)
		if errors.Is(err, ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, time.Now())
		f.Done(e)
	}
	if len(times) != 3 {
		t.Fatalf("got %d entries, want 3", len(times))
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < delay-time.Millisecond {
			t.Errorf("gap %d = %v, want >= %v", i, gap, delay)
		}
	}
}

// TestSpillAndConcurrentCrawl runs workers over a generated link graph with
// a window far smaller than the queue, so most of the queue lives in the
// store, and checks that every URL is handed out exactly once.
func TestSpillAndConcurrentCrawl(t *testing.T) {
	const pages = 3000
	q := &memQueue{}
	f := mustNew(t, Options{MaxDepth: -1, Store: q, Window: 50, PerHostParallelism: 4})
	url := func(i int) string { return fmt.Sprintf("http://h%d/p%d", i%7, i) }
	add(f, q, 0, "", url(0))

	var mu sync.Mutex
	visits := map[string]int{}
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				e, err := f.Next(ctx)
				if errors.Is(err, ErrExhausted) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				visits[e.URL]++
				mu.Unlock()
				var i int
				fmt.Sscanf(e.URL[len("http://h0/p"):], "%d", &i)
				var links []Candidate
				for _, j := range []int{2*i + 1, 2*i + 2, i / 2, i + 1} {
					if j < pages {
						links = append(links, Candidate{URL: url(j), Depth: e.Depth + 1, Referrer: e.URL})
					}
				}
				fresh, _, _ := f.Reserve(context.Background(), links)
				q.commit(fresh, e.Seq) // one atomic commit: new entries + dequeue
				f.Publish(fresh)
				f.Done(e)
			}
		}()
	}
	wg.Wait()
	if len(visits) != pages {
		t.Errorf("visited %d distinct URLs, want %d", len(visits), pages)
	}
	for u, n := range visits {
		if n != 1 {
			t.Errorf("%s handed out %d times", u, n)
		}
	}
	if len(q.pending) != 0 {
		t.Errorf("%d entries left in the store", len(q.pending))
	}
	if q.scans == 0 {
		t.Error("the store was never scanned: the window did not bound memory")
	}
}

// TestSpillKeepsSeqOrder: once entries wait in the store, entries
// published later wait behind them, so Next hands out every entry in
// sequence (discovery) order, as a breadth-first crawl needs.
func TestSpillKeepsSeqOrder(t *testing.T) {
	q := &memQueue{}
	f := mustNew(t, Options{MaxDepth: -1, Store: q, Window: 4, PerHostParallelism: 1})
	ctx := context.Background()
	n := 0
	page := func() string { n++; return fmt.Sprintf("http://h/p%d", n) }
	add(f, q, 0, "", page(), page(), page(), page(), page(), page()) // 2 spilled
	var got []uint64
	for len(got) < 30 {
		e, err := f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Seq)
		var links []string
		if n < 30 {
			links = []string{page()}
		}
		if n < 30 && len(got)%2 == 0 {
			links = append(links, page())
		}
		add(f, q, e.Depth+1, e.URL, links...)
		q.commit(nil, e.Seq)
		f.Done(e)
	}
	for i, s := range got {
		if s != uint64(i+1) {
			t.Fatalf("handed out in order %v, want 1, 2, 3, …", got)
		}
	}
}

// TestSpillDoesNotStarveHosts: a host whose entries are all in the store
// is not left idle while memory holds entries of a host that waits for its
// delay.
func TestSpillDoesNotStarveHosts(t *testing.T) {
	q := &memQueue{}
	f := mustNew(t, Options{MaxDepth: -1, Store: q, Window: 10})
	f.SetHostDelay("slow", time.Hour)
	var urls []string
	for i := range 9 {
		urls = append(urls, fmt.Sprintf("http://slow/%d", i))
	}
	for i := range 5 {
		urls = append(urls, fmt.Sprintf("http://fast/%d", i))
	}
	add(f, q, 0, "", urls...) // slow/0..8 and fast/0 in memory, fast/1..4 spilled
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []string
	for range 6 { // slow/0 (then slow waits an hour) and fast/0..4
		e, err := f.Next(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		got = append(got, e.URL)
		q.commit(nil, e.Seq)
		f.Done(e)
	}
	want := []string{"http://slow/0", "http://fast/0", "http://fast/1", "http://fast/2", "http://fast/3", "http://fast/4"}
	if !slices.Equal(got, want) {
		t.Errorf("handed out %v, want %v", got, want)
	}
}

func TestResume(t *testing.T) {
	q := &memQueue{}
	q.commit([]Entry{{Seq: 5, URL: "http://a/5"}, {Seq: 9, URL: "http://b/9", Depth: 2}, {Seq: 7, URL: "http://a/7"}})
	seen := &exactSet{}
	f := mustNew(t, Options{MaxDepth: -1, Store: q, Window: 2, Filter: seen})
	n, err := f.Resume(context.Background())
	if err != nil || n != 3 {
		t.Fatalf("Resume = %d, %v; want 3, nil", n, err)
	}
	fresh, _, _ := f.Reserve(context.Background(), []Candidate{{URL: "http://a/5"}, {URL: "http://c/1"}})
	if len(fresh) != 1 || fresh[0].Seq != 10 {
		t.Fatalf("fresh = %+v, want one entry with seq 10", fresh)
	}
	q.commit(fresh)
	f.Publish(fresh)
	var got []string
	for {
		e, err := f.Next(context.Background())
		if errors.Is(err, ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.URL)
		q.commit(nil, e.Seq)
		f.Done(e)
	}
	sort.Strings(got)
	if want := "[http://a/5 http://a/7 http://b/9 http://c/1]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

// batchSet is an exact URL filter with the batch method; it counts its calls.
type batchSet struct {
	exactSet
	calls, keys int
}

func (s *batchSet) TestAndAddBatch(keys []string, seen []bool) {
	s.mu.Lock()
	s.calls++
	s.keys += len(keys)
	s.mu.Unlock()
	for i, k := range keys {
		seen[i] = s.TestAndAdd(k)
	}
}

// TestReserveBatchMatchesOneByOne: a URL filter with TestAndAddBatch gives the
// same entries, trace and filter state as one without, call after call.
func TestReserveBatchMatchesOneByOne(t *testing.T) {
	calls := [][]Candidate{
		{{URL: "http://a/1"}, {URL: "http://a/1"}, {URL: "http://a/2", Depth: 2},
			{URL: "http://a/3", Depth: 1}, {URL: "http://a/4"}, {URL: "http://a/5"},
			{URL: "http://b/1", Referrer: "http://a/1"}, {URL: "http://b/2"}, {URL: "http://c/1"}},
		{{URL: "http://a/1"}, {URL: "http://c/2"}, {URL: "http://c/2"}, {URL: "http://b/3"},
			{URL: "http://d/1"}, {URL: "http://d/2"}, {URL: "http://d/3"}, {URL: "http://d/4"}},
		{{URL: "http://e/1"}, {URL: "http://e/2"}, {URL: "http://a/9"}, {URL: "http://e/1"}},
	}
	for _, o := range []Options{
		{MaxDepth: -1},
		{MaxDepth: 1},
		{MaxDepth: 1, MaxPerHost: 3},
		{MaxDepth: 1, MaxTotal: 6},
		{MaxDepth: 1, MaxPerHost: 2, MaxTotal: 9},
		{MaxDepth: 0, MaxPerHost: 1},
	} {
		one, batch := &exactSet{}, &batchSet{}
		o1, o2 := o, o
		o1.Filter, o2.Filter = one, batch
		f1, f2 := mustNew(t, o1), mustNew(t, o2)
		for i, cs := range calls {
			fresh1, tested1, _ := f1.Reserve(context.Background(), cs)
			before := batch.calls
			fresh2, tested2, _ := f2.Reserve(context.Background(), cs)
			for _, fr := range [][]Entry{fresh1, fresh2} {
				for k := range fr {
					if fr[k].Queued.IsZero() {
						t.Fatalf("entry %v: Reserve left Queued zero", fr[k])
					}
					fr[k].Queued = time.Time{} // the time of the call
				}
			}
			if fmt.Sprint(fresh1) != fmt.Sprint(fresh2) || fmt.Sprint(tested1) != fmt.Sprint(tested2) {
				t.Fatalf("%+v call %d: batch fresh %v tested %v; one by one fresh %v tested %v",
					o, i, fresh2, tested2, fresh1, tested1)
			}
			if o.MaxTotal == 0 && o.MaxPerHost == 0 && len(tested2) > 0 && batch.calls-before != 1 {
				t.Errorf("%+v call %d: %d batch calls, want 1 without limits", o, i, batch.calls-before)
			}
		}
		if fmt.Sprint(one.m) != fmt.Sprint(batch.m) {
			t.Fatalf("%+v: URL filter %v after batches, %v one by one", o, batch.m, one.m)
		}
		if batch.keys == 0 {
			t.Fatalf("%+v: the batch method was never used", o)
		}
	}
}

// TestReserveBatchLimitsConcurrent: concurrent Reserves through a batch
// URL filter reach MaxTotal and MaxPerHost exactly (no batch of one call
// overshoots a cap while another call's candidates are being tested).
func TestReserveBatchLimitsConcurrent(t *testing.T) {
	const workers, maxTotal, maxPerHost = 8, 100, 20
	for _, o := range []Options{
		{MaxDepth: -1, MaxTotal: maxTotal},
		{MaxDepth: -1, MaxPerHost: maxPerHost},
	} {
		set := &batchSet{}
		o.Filter = set
		f := mustNew(t, o)
		var mu sync.Mutex
		perHost := map[string]int{}
		total := 0
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round := range 5 {
					var cs []Candidate
					for i := range 60 {
						cs = append(cs, Candidate{URL: fmt.Sprintf("http://h%d/w%d-r%d-%d", i%3, w, round, i)})
					}
					fresh, _, _ := f.Reserve(context.Background(), cs)
					mu.Lock()
					for _, e := range fresh {
						perHost[hostOf(e.URL)]++
						total++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if o.MaxTotal > 0 && total != maxTotal {
			t.Errorf("MaxTotal %d: %d queued", maxTotal, total)
		}
		if o.MaxPerHost > 0 {
			for h, n := range perHost {
				if n != maxPerHost {
					t.Errorf("MaxPerHost %d: %s queued %d", maxPerHost, h, n)
				}
			}
		}
		if f.testing != 0 || len(f.testingHost) != 0 {
			t.Errorf("%d candidates (%v) still counted as being tested", f.testing, f.testingHost)
		}
	}
}

// TestHoldNewHostsAndHostDelay: with HoldNewHosts a host gets one request
// at a time until SetHostDelay; a host delay longer than Options.Delay
// (robots.txt's Crawl-delay) makes its requests serial and spaces each
// hand-out at least that long after the previous entry's Done.
func TestHoldNewHostsAndHostDelay(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel() // Next(done) returns an entry only if one is ready now
	f := mustNew(t, Options{MaxDepth: -1, PerHostParallelism: 2, HoldNewHosts: true})
	add(f, nil, 0, "", "http://a/1", "http://a/2", "http://a/3", "http://b/1")
	a1, err := f.Next(done)
	if err != nil || a1.URL != "http://a/1" {
		t.Fatalf("first Next = %v, %v", a1.URL, err)
	}
	if e, err := f.Next(done); err != nil || e.URL != "http://b/1" {
		t.Fatalf("second Next = %v, %v; want b/1 (a is held)", e.URL, err)
	}
	if e, err := f.Next(done); err == nil {
		t.Fatalf("a second entry of an unknown host was handed out: %s", e.URL)
	}
	f.SetHostDelay("a", 0) // known, no Crawl-delay: parallelism 2
	if e, err := f.Next(done); err != nil || e.URL != "http://a/2" {
		t.Fatalf("after SetHostDelay: %v, %v; want a/2 beside a/1", e.URL, err)
	}
	if got := f.HostDelay("a"); got != 0 {
		t.Fatalf("HostDelay(a) = %v", got)
	}

	const crawlDelay = 40 * time.Millisecond
	g := mustNew(t, Options{MaxDepth: -1, PerHostParallelism: 4, Delay: 10 * time.Millisecond, HoldNewHosts: true})
	add(g, nil, 0, "", "http://c/1", "http://c/2", "http://c/3", "http://c/4")
	g.SetHostDelay("c", crawlDelay)
	if got := g.HostDelay("c"); got != crawlDelay {
		t.Fatalf("HostDelay(c) = %v, want %v", got, crawlDelay)
	}
	var doneAt time.Time
	for i := 0; ; i++ {
		e, err := g.Next(context.Background())
		if errors.Is(err, ErrExhausted) {
			if i != 4 {
				t.Fatalf("handed out %d entries, want 4", i)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if gap := time.Since(doneAt); gap < crawlDelay {
				t.Errorf("entry %d handed out %v after the previous Done, want >= %v", i, gap, crawlDelay)
			}
		}
		if e2, err := g.Next(done); err == nil {
			t.Fatalf("two entries of a Crawl-delay host in flight: %s and %s", e.URL, e2.URL)
		}
		doneAt = time.Now()
		g.Done(e)
	}
	// a Crawl-delay not above Options.Delay changes nothing
	g.SetHostDelay("d", 5*time.Millisecond)
	if got := g.HostDelay("d"); got != 10*time.Millisecond {
		t.Fatalf("HostDelay(d) = %v, want Options.Delay", got)
	}
}

// TestContinuousRefresh: with Options.Continuous, Next waits on an empty
// frontier instead of returning ErrExhausted, and an entry from Refresh
// (a URL already seen, not tested again) is handed out once published.
func TestContinuousRefresh(t *testing.T) {
	f := mustNew(t, Options{Filter: &exactSet{}, Continuous: true, MaxDepth: -1})
	fresh, _, err := f.Reserve(context.Background(), []Candidate{{URL: "http://a/hub"}})
	if err != nil || len(fresh) != 1 {
		t.Fatalf("Reserve: %v %v", fresh, err)
	}
	f.Publish(fresh)
	e, err := f.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f.Done(e)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := f.Next(ctx)
		got <- err
	}()
	r := f.Refresh(Candidate{URL: "http://a/hub"})
	if r.Seq <= e.Seq || r.Queued.IsZero() {
		t.Fatalf("Refresh entry %+v after %+v", r, e)
	}
	f.Publish([]Entry{r})
	if err := <-got; err != nil {
		t.Fatalf("Next after Refresh: %v", err)
	}
	// Empty again: Next waits (no ErrExhausted) until ctx ends.
	go func() {
		_, err := f.Next(ctx)
		got <- err
	}()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("Next on an empty continuous frontier: %v, want context.Canceled", err)
	}
	f.Close()
	if _, err := f.Next(context.Background()); !errors.Is(err, ErrExhausted) {
		t.Fatalf("Next after Close: %v, want ErrExhausted", err)
	}
}

// TestHoldKeepsNextWaiting: while held, an empty frontier's Next waits
// (here until its context ends) instead of reporting ErrExhausted; entries
// published meanwhile are handed out; after release it is exhausted.
func TestHoldKeepsNextWaiting(t *testing.T) {
	f := mustNew(t, Options{MaxDepth: -1})
	release := f.Hold()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Next(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("held, empty: Next = %v, want it to wait (context.Canceled)", err)
	}
	fresh, _, _ := f.Reserve(context.Background(), []Candidate{{URL: "http://a/1"}})
	f.Publish(fresh)
	e, err := f.Next(context.Background())
	if err != nil || e.URL != "http://a/1" {
		t.Fatalf("Next = %v, %v; want http://a/1", e, err)
	}
	f.Done(e)
	release()
	release() // a second call does nothing
	if _, err := f.Next(context.Background()); !errors.Is(err, ErrExhausted) {
		t.Errorf("released, empty: Next = %v, want ErrExhausted", err)
	}
}

// TestDeferHoldsHost: a deferred entry goes back to the head of its host's
// queue and no entry of that host is handed out before the time given;
// other hosts go on; a Done after Defer does nothing.
func TestDeferHoldsHost(t *testing.T) {
	f := mustNew(t, Options{MaxDepth: -1, PerHostParallelism: 2})
	add(f, nil, 0, "", "http://a/1", "http://a/2", "http://b/1")
	ctx := context.Background()
	e, err := f.Next(ctx)
	if err != nil || e.URL != "http://a/1" {
		t.Fatalf("Next = %v, %v", e.URL, err)
	}
	const wait = 80 * time.Millisecond
	until := time.Now().Add(wait)
	f.Defer(e, until)
	f.Done(e) // does nothing
	var got []string
	for {
		e, err := f.Next(ctx)
		if errors.Is(err, ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if hostOf(e.URL) == "a" && time.Now().Before(until) {
			t.Errorf("%s handed out %v before the deferral ended", e.URL, time.Until(until))
		}
		got = append(got, e.URL)
		f.Done(e)
	}
	want := []string{"http://b/1", "http://a/1", "http://a/2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if s := f.Stats(); s.InFlight != 0 || s.InMemory != 0 {
		t.Errorf("stats %+v after the run", s)
	}
}

// TestHop: an entry that hops to another host (a redirect) holds one host
// at a time: it frees its own host at once, waits for the other's
// parallelism and delay, gets it before that host's queued entries, and
// Done frees it. A Hop ended by its context holds nothing; Defer after a
// Hop puts the entry back in its own host's queue.
func TestHop(t *testing.T) {
	f := mustNew(t, Options{MaxDepth: -1, PerHostParallelism: 1})
	f.SetHostDelay("b", 60*time.Millisecond)
	add(f, nil, 0, "", "http://a/1", "http://b/1", "http://a/2", "http://b/2")
	ctx := context.Background()
	a1, _ := f.Next(ctx)
	b1, _ := f.Next(ctx)
	if a1.URL != "http://a/1" || b1.URL != "http://b/1" {
		t.Fatalf("Next gave %s, %s", a1.URL, b1.URL)
	}
	// a/1 redirects to b: host a is free at once, b is busy with b/1
	hopped := make(chan time.Time)
	go func() {
		if err := f.Hop(ctx, a1, "b"); err != nil {
			t.Error(err)
		}
		hopped <- time.Now()
	}()
	a2, err := f.Next(ctx)
	if err != nil || a2.URL != "http://a/2" {
		t.Fatalf("Next = %s, %v; want a/2 while a/1 waits for b", a2.URL, err)
	}
	select {
	case <-hopped:
		t.Fatal("Hop to b while b/1 is in flight (parallelism 1)")
	case <-time.After(30 * time.Millisecond):
	}
	freed := time.Now()
	f.Done(b1)
	at := <-hopped
	if d := at.Sub(freed); d < 60*time.Millisecond {
		t.Errorf("Hop got b %v after b/1 ended, want >= its delay 60ms", d)
	}
	// b/2 waits for the hopped entry, which holds b now
	ctx2, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if e, err := f.Next(ctx2); err == nil {
		t.Fatalf("Next gave %s while a/1 holds b", e.URL)
	}
	// a/1 hops back to a (a retry), held by a/2: its context ends first
	ctx3, cancel3 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel3()
	if err := f.Hop(ctx3, a1, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Hop to a held by a/2 = %v, want the context's error", err)
	}
	f.Defer(a1, time.Now()) // a/1 back in a's queue, holding nothing
	f.Done(a2)
	var got []string
	for {
		e, err := f.Next(ctx)
		if errors.Is(err, ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.URL)
		f.Done(e)
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[http://a/1 http://b/2]" {
		t.Errorf("handed out after the hops: %v, want a/1 (deferred) and b/2", got)
	}
	if s := f.Stats(); s.InFlight != 0 || s.InMemory != 0 {
		t.Errorf("stats %+v after the run", s)
	}
}

func TestFetchedReleasesHost(t *testing.T) {
	f := mustNew(t, Options{MaxDepth: -1, PerHostParallelism: 1})
	add(f, nil, 0, "", "http://a/1", "http://a/2", "http://a/3")
	ctx := context.Background()
	a1, _ := f.Next(ctx)
	short, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	if e, err := f.Next(short); err == nil {
		t.Fatalf("Next gave %s while a/1 holds a (parallelism 1)", e.URL)
	}
	// a/1's request is over: a may be sent a/2 while a/1 is still handed out
	f.Fetched(a1)
	f.Fetched(a1) // again: nothing more released
	a2, err := f.Next(ctx)
	if err != nil || a2.URL != "http://a/2" {
		t.Fatalf("Next = %s, %v; want a/2 once a/1 was fetched", a2.URL, err)
	}
	if s := f.Stats(); s.InFlight != 2 {
		t.Errorf("in flight %d, want 2 (a/1 until Done)", s.InFlight)
	}
	// a/1's Done releases no host: a/2 still holds a
	f.Done(a1)
	short2, cancel2 := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel2()
	if e, err := f.Next(short2); err == nil {
		t.Fatalf("Next gave %s while a/2 holds a", e.URL)
	}
	f.Done(a2)
	if a3, err := f.Next(ctx); err != nil || a3.URL != "http://a/3" {
		t.Fatalf("Next = %s, %v; want a/3", a3.URL, err)
	}
}
