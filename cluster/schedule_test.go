package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
)

// waitHeld waits (5 s at most) until n holds every partition.
func waitHeld(t *testing.T, n *Node) {
	t.Helper()
	for i := 0; len(n.Held()) < n.o.Partitions; i++ {
		if i == 100 {
			t.Fatalf("%s holds %v of %d partitions after 5 s", n.name, n.Held(), n.o.Partitions)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestScheduleMovesWithLease: a node writes 40 URLs' next refreshes to
// their partitions' schedules and dies (killed: nothing released) before
// they are due; the node that takes its partitions over queues all 40
// when they fall due, each once, with its record, while the dead node,
// its leases gone, can queue none of them (fencing) nor anything written
// since.
func TestScheduleMovesWithLease(t *testing.T) { forBackends(t, testScheduleMovesWithLease) }

func testScheduleMovesWithLease(t *testing.T, url string) {
	ctx := context.Background()
	dead, err := Open(ctx, Options{URL: url, Node: "dead", Partitions: 8, LeaseTTL: 600 * time.Millisecond, Capacity: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	defer dead.rdb.Close()
	waitHeld(t, dead)
	due := time.Now().Add(time.Second)
	var items []Scheduled
	for i := range 40 {
		items = append(items, Scheduled{URL: fmt.Sprintf("http://h%d.example.net/", i), Due: due, Record: fmt.Sprintf("rec%d", i)})
	}
	if _, err := dead.ScheduleAfter(nil, items).Wait(ctx); err != nil {
		t.Fatal(err)
	}
	moved, next, err := dead.QueueDue(ctx, time.Now(), 100)
	if err != nil || moved != 0 || next.UnixMilli() != due.UnixMilli() {
		t.Fatalf("QueueDue before they are due: %d moved, next %v, %v; want 0 and %v", moved, next, err, due)
	}
	// Die: the lease loop stops, nothing is released.
	close(dead.stop)
	<-dead.loopDone
	<-dead.commitDone

	other := open(t, url, "other")
	waitHeld(t, other)
	for time.Now().Before(due) {
		time.Sleep(50 * time.Millisecond)
	}
	// the dead node still believes it holds its partitions: fenced
	if moved, _, err := dead.QueueDue(ctx, time.Now(), 100); err != nil || moved != 0 {
		t.Fatalf("the dead node's QueueDue: %d moved, %v; want 0 (its leases are another's)", moved, err)
	}
	moved, next, err = other.QueueDue(ctx, time.Now(), 100)
	if err != nil || moved != 40 || !next.IsZero() {
		t.Fatalf("the new owner's QueueDue: %d moved, next %v, %v; want 40 and none left", moved, next, err)
	}
	got := map[string]string{}
	for i := 0; len(got) < 40 && i < 100; i++ {
		tasks, err := other.Take(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range tasks {
			if _, dup := got[tk.URL]; dup {
				t.Errorf("%s handed out twice", tk.URL)
			}
			got[tk.URL] = tk.Referrer
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, it := range items {
		want := fmt.Sprintf("%s%d\x00rec%d", RefreshMark, due.UnixMilli(), i)
		if got[it.URL] != want {
			t.Errorf("%s: referrer field %q, want %q", it.URL, got[it.URL], want)
		}
	}
	// nothing is due twice
	if moved, _, err := other.QueueDue(ctx, time.Now(), 100); err != nil || moved != 0 {
		t.Errorf("QueueDue again: %d moved, %v; want 0", moved, err)
	}

	// ScheduleAbsent adds only the URLs not on the schedule; the records
	// of the queued ones left the hash with them
	far := time.Now().Add(time.Hour)
	x, y := "http://x.example.net/", "http://y.example.net/"
	if _, err := other.ScheduleAfter(nil, []Scheduled{{URL: x, Due: far, Record: "a"}}).Wait(ctx); err != nil {
		t.Fatal(err)
	}
	k, err := other.ScheduleAbsent(ctx, []Scheduled{{URL: x, Due: time.Now(), Record: "b"}, {URL: y, Due: far, Record: "c"}})
	if err != nil || k != 1 {
		t.Errorf("ScheduleAbsent: %d added, %v; want 1", k, err)
	}
	recs, err := other.ScheduleRecords(ctx, []string{x, y, items[0].URL})
	if err != nil || !slices.Equal(recs, []string{"a", "c", ""}) {
		t.Errorf("ScheduleRecords: %q, %v; want [a c \"\"]", recs, err)
	}
}

// TestScheduleBytesPerURL writes 20,000 news-article-like URLs with
// records of a typical size (an ETag and a Last-Modified date) to the
// schedule of 8 partitions and measures MEMORY USAGE of the schedules'
// keys per URL.
func TestScheduleBytesPerURL(t *testing.T) {
	url := "redis://" + redistest.Start(t) + "/0"
	ctx := context.Background()
	n := open(t, url, "n")
	const urls = 20_000
	due := time.Now().Add(time.Hour)
	items := make([]Scheduled, 0, 1000)
	var recBytes, urlBytes int
	for i := range urls {
		u := fmt.Sprintf("https://www.news-site-%d.com/world/2026/11/27/story-%d-headline-words", i%50, i)
		rec := strings.Join([]string{"mhx8k2l0", "3w5e8r9t1y2u", "", "1q2w3e4r5t6y7", fmt.Sprintf(`"5f3c-%08x"`, i), "Fri, 27 Nov 2026 05:44:09 GMT", "0", "node1"}, "\x1f")
		recBytes += len(rec)
		urlBytes += len(u)
		items = append(items, Scheduled{URL: u, Due: due.Add(time.Duration(i) * time.Millisecond), Record: rec})
		if len(items) == cap(items) {
			if _, err := n.ScheduleAfter(nil, items).Wait(ctx); err != nil {
				t.Fatal(err)
			}
			items = items[:0]
		}
	}
	var total int64
	for p := range n.o.Partitions {
		for _, kind := range []string{"due", "rec"} {
			b, err := n.rdb.MemoryUsage(ctx, n.key(p, kind), 0).Result()
			if errors.Is(err, redis.Nil) {
				continue // no URL in this partition
			}
			if err != nil {
				t.Fatal(err)
			}
			total += b
		}
	}
	per := float64(total) / urls
	t.Logf("schedule: %.1f bytes per scheduled URL (URL %d bytes, record %d bytes on average)", per, urlBytes/urls, recBytes/urls)
	if per > float64(2*urlBytes/urls+recBytes/urls+200) {
		t.Errorf("%.1f bytes per scheduled URL: more than the URL twice, the record and 200 bytes of structure", per)
	}
}

// BenchmarkScheduleRefresh is the schedule's Redis cost of one refresh:
// per op, one URL's next due time written (ScheduleAfter, in batches of
// 100, as a node's pages arrive) and, once due, moved into its partition's
// stream (QueueDue). It reports, per URL, Redis's CPU (redis_cpu_us), the
// commands Redis ran (scripts' inner commands included), the node's round
// trips and the bytes sent to Redis.
func BenchmarkScheduleRefresh(b *testing.B) {
	bin, err := redistest.Binary()
	if err != nil {
		b.Skip(err)
	}
	srv, err := redistest.StartServer(bin, b.TempDir(), false)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	n, err := Open(ctx, Options{URL: "redis://" + srv.Addr + "/0", Node: "n", Partitions: 16, LeaseTTL: 3 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	for i := 0; len(n.Held()) < 16; i++ {
		if i == 200 {
			b.Fatal("the node holds no partitions after 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	info := func() map[string]float64 {
		out := map[string]float64{}
		s, err := n.rdb.Info(ctx, "stats", "cpu").Result()
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(s, "\r\n") {
			k, v, ok := strings.Cut(line, ":")
			if f, err := strconv.ParseFloat(v, 64); ok && err == nil {
				out[k] = f
			}
		}
		return out
	}
	rec := strings.Join([]string{"mhx8k2l0", "3w5e8r9t1y2u", "", "1q2w3e4r5t6y7", `"5f3c-6a1b2c3d"`, "Fri, 27 Nov 2026 05:44:09 GMT", "0", "node1"}, "\x1f")
	before, trips := info(), n.RoundTrips()
	b.ResetTimer()
	due := time.Now()
	batch := make([]Scheduled, 0, 100)
	var pend []*Pending
	for i := range b.N {
		batch = append(batch, Scheduled{URL: fmt.Sprintf("https://www.news-site-%d.com/section-%d/", i%200, i), Due: due, Record: rec})
		if len(batch) == cap(batch) || i == b.N-1 {
			pend = append(pend, n.ScheduleAfter(nil, batch))
			batch = make([]Scheduled, 0, 100)
		}
	}
	for _, p := range pend {
		if _, err := p.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for moved := 0; moved < b.N; {
		k, _, err := n.QueueDue(ctx, time.Now(), 1000)
		if err != nil {
			b.Fatal(err)
		}
		moved += k
	}
	b.StopTimer()
	after := info()
	d := func(k string) float64 { return (after[k] - before[k]) / float64(b.N) }
	b.ReportMetric(d("used_cpu_user")*1e6+d("used_cpu_sys")*1e6, "redis_cpu_us/op")
	b.ReportMetric(d("total_commands_processed"), "commands/op")
	b.ReportMetric(d("total_net_input_bytes"), "bytes_in/op")
	b.ReportMetric(float64(n.RoundTrips()-trips)/float64(b.N), "round_trips/op")
}
