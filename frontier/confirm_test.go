package frontier

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// liar is a URL filter that answers "seen" for every key after the first
// few: the worst case of a saturated Bloom filter.
type liar struct {
	mu    sync.Mutex
	added int
}

func (l *liar) TestAndAdd(string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.added++
	return l.added > 3
}

// knownMap is a store for Confirm: URLs committed so far.
type knownMap struct {
	mu    sync.Mutex
	m     map[string]bool
	reads int
	fail  bool
}

func (k *knownMap) Known(_ context.Context, urls []string, known []bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.reads++
	if k.fail {
		return errors.New("disk on fire")
	}
	for i, u := range urls {
		known[i] = k.m[u]
	}
	return nil
}

func (k *knownMap) commit(es []Entry) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, e := range es {
		k.m[e.URL] = true
	}
}

// TestConfirmAdmitsOnce: workers reserving the same links concurrently,
// with a filter that says "seen" for almost everything and a recent ring
// too small to help, admit every URL exactly once: a URL reserved by one
// worker and not yet committed is not admitted again by another (run with
// -race).
func TestConfirmAdmitsOnce(t *testing.T) {
	const urls, workers, rounds = 300, 8, 6
	for _, recent := range []int{-1, 1024, DefaultRecentBytes} {
		t.Run(fmt.Sprintf("recent=%d", recent), func(t *testing.T) {
			store := &knownMap{m: map[string]bool{}}
			f := mustNew(t, Options{MaxDepth: -1, Filter: &liar{}, Confirm: store, RecentBytes: recent})
			var mu sync.Mutex
			admitted := map[string]int{}
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 1))
					for range rounds {
						var cs []Candidate
						for range 20 {
							cs = append(cs, Candidate{URL: fmt.Sprintf("http://h%d/p/%d", r.IntN(3), r.IntN(urls/3))})
						}
						fresh, _, err := f.Reserve(context.Background(), cs)
						if err != nil {
							t.Error(err)
							return
						}
						store.commit(fresh) // the page's commit
						f.Publish(fresh)
						mu.Lock()
						for _, e := range fresh {
							admitted[e.URL]++
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			for u, n := range admitted {
				if n != 1 {
					t.Errorf("%s admitted %d times", u, n)
				}
			}
			if n := len(f.conf.held); n != 0 {
				t.Errorf("%d URLs still held after every reservation was published", n)
			}
			st := f.Stats()
			if int(st.FalsePositives) != len(admitted)-3 {
				t.Errorf("%d false positives counted; %d URLs admitted, the filter told the truth for 3", st.FalsePositives, len(admitted))
			}
			if st.ConfirmReads > workers*rounds {
				t.Errorf("%d store reads for %d Reserve calls: want at most one each", st.ConfirmReads, workers*rounds)
			}
		})
	}
}

// TestConfirmClaimAndError: Claim confirms like Reserve and holds the URL
// until Release; a store error is returned and reserves nothing.
func TestConfirmClaimAndError(t *testing.T) {
	ctx := context.Background()
	store := &knownMap{m: map[string]bool{"http://a/known": true}}
	f := mustNew(t, Options{MaxDepth: -1, Filter: &liar{added: 10}, Confirm: store, RecentBytes: DefaultRecentBytes})
	if ok, err := f.Claim(ctx, "http://a/known"); ok || err != nil {
		t.Errorf("Claim(known) = %v, %v; want false, nil", ok, err)
	}
	if ok, err := f.Claim(ctx, "http://a/alias"); !ok || err != nil {
		t.Errorf("Claim(new alias) = %v, %v; want true, nil (a false positive)", ok, err)
	}
	// Held until Release: a link to it on another page is not admitted.
	if fresh, _, _ := f.Reserve(ctx, []Candidate{{URL: "http://a/alias"}}); len(fresh) != 0 {
		t.Errorf("claimed alias reserved again: %+v", fresh)
	}
	store.commit([]Entry{{URL: "http://a/alias"}})
	f.Release([]string{"http://a/alias"})
	if fresh, _, _ := f.Reserve(ctx, []Candidate{{URL: "http://a/alias"}}); len(fresh) != 0 {
		t.Errorf("released alias reserved again: %+v", fresh)
	}
	store.fail = true
	fresh, _, err := f.Reserve(ctx, []Candidate{{URL: "http://a/x"}, {URL: "http://a/y"}})
	if err == nil || len(fresh) != 0 || f.Stats().Reserved != 0 {
		t.Errorf("store error: fresh %v, err %v, %d reserved; want none and the error", fresh, err, f.Stats().Reserved)
	}
	if st := f.Stats(); st.FalsePositives != 1 {
		t.Errorf("%d false positives, want 1 (the alias)", st.FalsePositives)
	}
}

// TestConfirmCacheMappedAndClosed: with SpillDir the cache of recent URLs
// is in a mapped file; published URLs are confirmed from it without a
// store read, and after Close (which releases the file) from the store.
func TestConfirmCacheMappedAndClosed(t *testing.T) {
	ctx := context.Background()
	store := &knownMap{m: map[string]bool{}}
	f := mustNew(t, Options{MaxDepth: -1, Filter: &liar{}, Confirm: store, RecentBytes: DefaultRecentBytes, SpillDir: t.TempDir()})
	if f.arrays == nil && runtime.GOOS == "linux" {
		t.Fatal("no mapped file with SpillDir")
	}
	f.arrays.SetMinBytes(1) // the cache's arrays, as they grow past their first sizes
	var cs []Candidate
	for i := range 10_000 {
		cs = append(cs, Candidate{URL: fmt.Sprintf("http://h/p/%d", i)})
	}
	fresh, _, err := f.Reserve(ctx, cs)
	if err != nil || len(fresh) != len(cs) {
		t.Fatalf("Reserve: %d fresh, %v; want %d", len(fresh), err, len(cs))
	}
	store.commit(fresh)
	f.Publish(fresh)
	if runtime.GOOS == "linux" && f.arrays.Bytes() == 0 {
		t.Error("nothing mapped")
	}
	reads := store.reads
	if again, _, err := f.Reserve(ctx, cs); len(again) != 0 || err != nil || store.reads != reads {
		t.Fatalf("published URLs: %d admitted again, %v, %d store reads; want 0, nil, 0", len(again), err, store.reads-reads)
	}
	f.Close()
	if f.arrays.Bytes() != 0 {
		t.Errorf("%d bytes still mapped after Close", f.arrays.Bytes())
	}
	if again, _, err := f.Reserve(ctx, cs); len(again) != 0 || err != nil || store.reads != reads+1 {
		t.Fatalf("after Close: %d admitted again, %v, %d store reads; want 0, nil, 1", len(again), err, store.reads-reads)
	}
}
