package seen_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

func mustOpen(tb testing.TB) *storage.DB {
	tb.Helper()
	db, err := storage.Open(tb.TempDir(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func mustNew(tb testing.TB, st seen.Store, o seen.Options) *seen.Records {
	tb.Helper()
	r, err := seen.New(st, &o)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func ids(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("doc-%06d", i))
	}
	return out
}

// addAll adds ids in calls of at most 1000.
func addAll(tb testing.TB, r *seen.Records, key string, all []string) {
	tb.Helper()
	for len(all) > 0 {
		n := min(len(all), 1000)
		if _, err := r.Add(context.Background(), key, all[:n]); err != nil {
			tb.Fatal(err)
		}
		all = all[n:]
	}
}

func testAll(tb testing.TB, r *seen.Records, key string, all []string) []bool {
	tb.Helper()
	var out []bool
	for len(all) > 0 {
		n := min(len(all), 1000)
		got, err := r.Test(context.Background(), key, all[:n])
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, got...)
		all = all[n:]
	}
	return out
}

// TestWindow checks the block-list semantics after each number of ids:
// the last (Blocks−1)·Capacity ids are all remembered, the record never
// has more than Blocks blocks, and ids older than the kept blocks are
// forgotten a whole block at a time (only Bloom false positives remain).
func TestWindow(t *testing.T) {
	const capacity, blocks = 100, 5
	r := mustNew(t, mustOpen(t), seen.Options{Capacity: capacity, Blocks: blocks, FP: 0.001})
	ctx := context.Background()
	added := 0
	for _, n := range []int{1, 99, 100, 101, 400, 450, 500, 501, 650, 1000, 1234} {
		addAll(t, r, "reader", ids(added, n))
		added = n
		got := testAll(t, r, "reader", ids(0, n))
		window := (blocks - 1) * capacity
		for i := max(0, n-window); i < n; i++ {
			if !got[i] {
				t.Fatalf("after %d ids: id %d (age %d) forgotten; the last %d must be remembered", n, i, n-1-i, window)
			}
		}
		// The newest block holds the ids since the last multiple of
		// capacity; the kept blocks reach back blocks−1 full blocks more.
		newest := n - (n-1)/capacity*capacity
		kept := min(n, newest+window)
		fp := 0 // forgotten ids that still test seen: Bloom false positives
		for i := 0; i < n-kept; i++ {
			if got[i] {
				fp++
			}
		}
		if fp > 3 {
			t.Fatalf("after %d ids: %d of the %d forgotten ids test seen", n, fp, n-kept)
		}
		rec, err := r.Show(ctx, "reader", false)
		if err != nil {
			t.Fatal(err)
		}
		wantBlocks := min(blocks, (n+capacity-1)/capacity)
		if len(rec.Blocks) != wantBlocks || rec.Blocks[0].Count != uint64(newest) {
			t.Fatalf("after %d ids: %d blocks, newest holds %d; want %d blocks, newest %d", n, len(rec.Blocks), rec.Blocks[0].Count, wantBlocks, newest)
		}
	}
}

// TestReaddRefreshes: an id shown again while only an old block holds it
// goes into the newest block, so it outlives its first block.
func TestReaddRefreshes(t *testing.T) {
	r := mustNew(t, mustOpen(t), seen.Options{Capacity: 10, Blocks: 2})
	addAll(t, r, "k", ids(0, 10))  // block A: 0..9
	addAll(t, r, "k", ids(0, 1))   // id 0 again → block B
	addAll(t, r, "k", ids(10, 19)) // block B full (0, 10..18)
	addAll(t, r, "k", ids(19, 20)) // block C; A dropped
	got := testAll(t, r, "k", ids(0, 2))
	if !got[0] {
		t.Error("id 0, shown again, was forgotten with its first block")
	}
	if got[1] {
		t.Error("id 1 is still remembered after its block was dropped (or a false positive)")
	}
}

// TestFalsePositiveRate measures, with exact truth, the rate at which ids
// never added test seen in a full record (5 blocks of 1000 at 0.001), and
// compares it with the union of the blocks' predicted rates.
func TestFalsePositiveRate(t *testing.T) {
	r := mustNew(t, mustOpen(t), seen.Options{})
	addAll(t, r, "u", ids(0, 5000))
	got := testAll(t, r, "u", ids(1_000_000, 1_050_000))
	fp := 0
	for _, s := range got {
		if s {
			fp++
		}
	}
	m, k := urlfilter.BlockShape(1000, 0.001)
	f := urlfilter.ClassicFP(m, k, 1000)
	want := 1 - (1-f)*(1-f)*(1-f)*(1-f)*(1-f)
	measured := float64(fp) / float64(len(got))
	t.Logf("measured FP %.5f on %d fresh ids; predicted %.5f (5 blocks at %.5f; target 0.001 per block)", measured, len(got), want, f)
	if measured > 1.5*want || measured < want/1.5 {
		t.Fatalf("measured FP %.5f, predicted %.5f", measured, want)
	}
	if !all(testAll(t, r, "u", ids(0, 5000))) {
		t.Fatal("a recorded id tests new")
	}
}

func all(b []bool) bool {
	for _, v := range b {
		if !v {
			return false
		}
	}
	return true
}

// TestExpiry: the record expires TTL after its last write, through
// Badger's TTL; a later write moves the expiry.
func TestExpiry(t *testing.T) {
	db := mustOpen(t)
	r := mustNew(t, db, seen.Options{TTL: time.Second})
	ctx := context.Background()
	start := time.Now()
	addAll(t, r, "short", ids(0, 3))
	_, exp, err := db.SeenRecord(ctx, "short")
	if err != nil {
		t.Fatal(err)
	}
	if exp.Before(start.Add(-time.Second)) || exp.After(time.Now().Add(2*time.Second)) {
		t.Fatalf("expires %s, want about 1s after %s", exp, start)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := testAll(t, r, "short", ids(0, 3))
		if !got[0] && !got[1] && !got[2] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("record with a 1s TTL still there after 10s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Badger keeps expiry in whole Unix seconds (ExpiresAt), so a record
	// may go up to 1s before its TTL, but never before its ExpiresAt.
	if now := time.Now(); now.Before(exp) {
		t.Fatalf("record expired at %s, before its expiry %s", now, exp)
	}
	rec, err := r.Show(ctx, "short", false)
	if err != nil || len(rec.Blocks) != 0 || rec.Bytes != 0 || rec.Expires != nil {
		t.Fatalf("expired record shows %+v, %v", rec, err)
	}

	// A longer TTL: a second write pushes the expiry later.
	r2 := mustNew(t, db, seen.Options{TTL: time.Hour})
	addAll(t, r2, "long", ids(0, 1))
	_, exp1, _ := db.SeenRecord(ctx, "long")
	time.Sleep(1100 * time.Millisecond)
	addAll(t, r2, "long", ids(1, 2))
	_, exp2, _ := db.SeenRecord(ctx, "long")
	if !exp2.After(exp1) {
		t.Fatalf("expiry %s not moved by a later write (was %s)", exp2, exp1)
	}
}

// TestConcurrentAdds: goroutines adding to one key at once lose no id.
func TestConcurrentAdds(t *testing.T) {
	r := mustNew(t, mustOpen(t), seen.Options{Capacity: 10_000})
	const workers, calls, per = 8, 25, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range calls {
				base := (w*calls + c) * per
				if _, err := r.Add(context.Background(), "hot", ids(base, base+per)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := testAll(t, r, "hot", ids(0, workers*calls*per))
	for i, s := range got {
		if !s {
			t.Fatalf("id %d lost by a concurrent add", i)
		}
	}
	rec, _ := r.Show(context.Background(), "hot", false)
	if n := rec.Blocks[0].Count; n < workers*calls*per-5 {
		t.Fatalf("block counts %d ids, want about %d", n, workers*calls*per)
	}
}

// TestBadInput: bad keys and ids are refused with ErrInput naming the
// problem, and nothing is recorded.
func TestBadInput(t *testing.T) {
	db := mustOpen(t)
	r := mustNew(t, db, seen.Options{MaxIDs: 3, MaxKey: 8, MaxID: 5})
	ctx := context.Background()
	for _, c := range []struct {
		key  string
		ids  []string
		want string
	}{
		{"", []string{"a"}, "key of 0 bytes"},
		{"toolongkey", []string{"a"}, "key of 10 bytes"},
		{"a:test", []string{"a"}, `ends in ":test"`},
		{"a\nb", []string{"a"}, "control characters"},
		{"k", nil, "no ids"},
		{"k", []string{"a", "b", "c", "d"}, "4 ids in one call (limit 3)"},
		{"k", []string{"a", ""}, "ids[1]: 0 bytes"},
		{"k", []string{"abcdef"}, "ids[0]: 6 bytes"},
	} {
		_, err := r.Add(ctx, c.key, c.ids)
		if !errors.Is(err, seen.ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%q, %q) = %v; want ErrInput mentioning %q", c.key, c.ids, err, c.want)
		}
		if _, err := r.Test(ctx, c.key, c.ids); !errors.Is(err, seen.ErrInput) {
			t.Errorf("Test(%q, %q) = %v; want ErrInput", c.key, c.ids, err)
		}
	}
	if v, _, _ := db.SeenRecord(ctx, "k"); v != nil {
		t.Fatal("a refused Add recorded something")
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []seen.Options{{Capacity: -1}, {FP: 0.7}, {Blocks: 1}, {TTL: time.Millisecond}, {MaxIDs: -2}} {
		if _, err := seen.New(mustOpen(t), &o); !errors.Is(err, seen.ErrOptions) {
			t.Errorf("New(%+v) = %v; want ErrOptions", o, err)
		}
	}
}

// TestCorruptRecord: a stored value that does not decode is reported and
// left unchanged.
func TestCorruptRecord(t *testing.T) {
	db := mustOpen(t)
	r := mustNew(t, db, seen.Options{})
	ctx := context.Background()
	bad := []byte{1, 1, 5, 10, 200, 1} // one block, claims 200 bytes of bits
	if err := db.UpdateSeenRecord(ctx, "x", time.Hour, func([]byte) ([]byte, error) { return bad, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(ctx, "x", []string{"a"}); !errors.Is(err, seen.ErrCorrupt) {
		t.Fatalf("Add on a corrupt record: %v", err)
	}
	if _, err := r.Test(ctx, "x", []string{"a"}); !errors.Is(err, seen.ErrCorrupt) {
		t.Fatalf("Test on a corrupt record: %v", err)
	}
	if v, _, _ := db.SeenRecord(ctx, "x"); string(v) != string(bad) {
		t.Fatal("a failed Add changed the stored record")
	}
}

// TestShowAuditAndSeedForm: the audit lists the plain ids when on, and
// each block's seed form "count::base64(bits)" decodes to its bits.
func TestShowAuditAndSeedForm(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	on := mustNew(t, db, seen.Options{Audit: true, Capacity: 2, Blocks: 2})
	addAll(t, on, "a", []string{"x", "y", "z", "w", "v"})
	rec, err := on.Show(ctx, "a", true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rec.Audit, ",") != "y,z,w,v" {
		t.Errorf("audit %q, want the last 4 ids y,z,w,v", rec.Audit)
	}
	if len(rec.Blocks) != 2 || rec.Blocks[0].Count != 1 || rec.Blocks[1].Count != 2 {
		t.Fatalf("blocks %+v", rec.Blocks)
	}
	cnt, b64, ok := strings.Cut(rec.Blocks[1].Seed, "::")
	bits, err := base64.StdEncoding.DecodeString(b64)
	if !ok || cnt != "2" || err != nil || uint64(len(bits))*8 != rec.Blocks[1].Bits {
		t.Fatalf("seed form %q does not decode to count 2 and %d bits", rec.Blocks[1].Seed, rec.Blocks[1].Bits)
	}
	off := mustNew(t, db, seen.Options{})
	addAll(t, off, "b", []string{"x"})
	if rec, _ := off.Show(ctx, "b", false); rec.Audit != nil {
		t.Errorf("audit off, but the record keeps %q", rec.Audit)
	}
	if existed, err := off.Delete(ctx, "b"); !existed || err != nil {
		t.Fatalf("Delete = %v, %v", existed, err)
	}
	if got := testAll(t, off, "b", []string{"x"}); got[0] {
		t.Fatal("deleted record still answers seen")
	}
}
