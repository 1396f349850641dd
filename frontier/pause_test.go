package frontier

import (
	"context"
	"testing"
	"time"
)

// TestPauseAndDrain: a paused host hands out nothing before the pause
// ends while another host goes on; a drained host hands out its entries
// at once, its delay, pause and parallelism limit gone.
func TestPauseAndDrain(t *testing.T) {
	st := &memQueue{}
	f := mustNew(t, Options{Store: st, Delay: time.Hour, PerHostParallelism: 1})
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var cands []Candidate
	for _, u := range []string{"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://b.test/1"} {
		cands = append(cands, Candidate{URL: u})
	}
	fresh, _, err := f.Reserve(ctx, cands)
	if err != nil {
		t.Fatal(err)
	}
	st.commit(fresh)
	f.Publish(fresh)
	f.Pause("a.test", time.Now().Add(time.Hour))
	e, err := f.Next(ctx)
	if err != nil || e.URL != "http://b.test/1" {
		t.Fatalf("Next with a.test paused = %q, %v; want b.test's entry", e.URL, err)
	}
	st.commit(nil, e.Seq)
	f.Done(e)
	f.Drain("a.test")
	f.Pause("a.test", time.Now().Add(time.Hour)) // no effect once drained
	var got []Entry
	for range 3 {
		e, err := f.Next(ctx)
		if err != nil {
			t.Fatalf("a drained host's entry not handed out: %v", err)
		}
		got = append(got, e) // all three in flight at once: no parallelism limit
	}
	for _, e := range got {
		st.commit(nil, e.Seq)
		f.Done(e)
	}
	if _, err := f.Next(ctx); err != ErrExhausted {
		t.Errorf("after the drained host's entries: %v, want ErrExhausted", err)
	}
}
