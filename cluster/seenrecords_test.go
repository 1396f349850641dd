package cluster_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/lab/redistest"
	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// seenRecords returns seen-records on the Redis at addr through a client
// of their own (a node of the cluster).
func seenRecords(t *testing.T, addr string, o *seen.Options) (*seen.Records, redis.UniversalClient) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	recs, err := seen.New(cluster.NewSeenStore(rdb, ""), o)
	if err != nil {
		t.Fatal(err)
	}
	return recs, rdb
}

// TestSeenStoreShared: ids one client records under a key are seen
// through another client; concurrent adds from two clients (eight
// goroutines each) lose no id; delete and show work as on the Badger
// store.
func TestSeenStoreShared(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	a, _ := seenRecords(t, addr, nil)
	b, rdb := seenRecords(t, addr, nil)
	if _, err := a.Add(ctx, "reader-1", []string{"x1", "x2"}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Test(ctx, "reader-1", []string{"x1", "x3", "x2"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[true false true]" {
		t.Errorf("test through the other client: %v, want [true false true]", got)
	}
	if n, err := rdb.Exists(ctx, "bloomcrawl:seen:reader-1").Result(); err != nil || n != 1 {
		t.Errorf("key bloomcrawl:seen:reader-1: exists %d, %v", n, err)
	}

	var wg sync.WaitGroup
	for c, recs := range []*seen.Records{a, b} {
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					ids := make([]string, 10)
					for j := range ids {
						ids[j] = fmt.Sprintf("c%d-g%d-%d-%d", c, g, i, j)
					}
					if _, err := recs.Add(ctx, "reader-2", ids); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	rec, err := a.Show(ctx, "reader-2", false)
	if err != nil {
		t.Fatal(err)
	}
	var count uint64
	for _, bl := range rec.Blocks {
		count += bl.Count
	}
	// an id the newest block already answers seen (a Bloom false
	// positive, rate about 0.001) is not counted again: a few fewer than
	// 1,600, where a lost update would lose a whole add of 10
	if count > 2*8*10*10 || count < 2*8*10*10-5 {
		t.Errorf("after 1,600 concurrent adds of distinct ids the record counts %d", count)
	}
	var all []string
	for c := range 2 {
		for g := range 8 {
			for i := range 10 {
				for j := range 10 {
					all = append(all, fmt.Sprintf("c%d-g%d-%d-%d", c, g, i, j))
				}
			}
		}
	}
	got, err = b.TestAll(ctx, "reader-2", all)
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range got {
		if !ok {
			t.Errorf("%s not seen after the concurrent adds", all[i])
		}
	}
	if rec.Expires == nil || time.Until(*rec.Expires) < seen.DefaultTTL-time.Minute || time.Until(*rec.Expires) > seen.DefaultTTL {
		t.Errorf("expires %v, want in about %s", rec.Expires, seen.DefaultTTL)
	}
	for _, want := range []bool{true, false} {
		existed, err := b.Delete(ctx, "reader-2")
		if err != nil || existed != want {
			t.Errorf("delete: %v, %v; want %v", existed, err, want)
		}
	}
}

// TestSeenStoreExpires: a record expires through Redis's own expiry (PX)
// its TTL after its last write; a test does not extend it.
func TestSeenStoreExpires(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	recs, rdb := seenRecords(t, addr, &seen.Options{TTL: time.Second})
	if _, err := recs.Add(ctx, "k", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	ttl, err := rdb.PTTL(ctx, "bloomcrawl:seen:k").Result()
	if err != nil || ttl <= 0 || ttl > time.Second {
		t.Fatalf("PTTL %v, %v; want in (0, 1s]", ttl, err)
	}
	rec, _ := recs.Show(ctx, "k", false)
	if rec.Expires == nil || time.Until(*rec.Expires) > time.Second {
		t.Errorf("show: expires %v, want within 1 s", rec.Expires)
	}
	if got, _ := recs.Test(ctx, "k", []string{"a"}); !got[0] {
		t.Error("a not seen right after it was added")
	}
	time.Sleep(1100 * time.Millisecond)
	if n, _ := rdb.Exists(ctx, "bloomcrawl:seen:k").Result(); n != 0 {
		t.Error("the record outlived its TTL in Redis")
	}
	if got, _ := recs.Test(ctx, "k", []string{"a"}); got[0] {
		t.Error("a still seen after the record expired")
	}
}

// TestSeenStoreCostPerKey compares what one key costs in Redis (MEMORY
// USAGE) with what it costs in the Badger store (the bytes of its value
// logs and tables after a value-log GC and close), for records of 10,
// 1,000 and 5,000 ids (1, 1 and 5 blocks), written two ways: all ids in
// one call, and 50 ids a call (a reader shown a page of ids at a time).
// Redis keeps one value per key; Badger appends each write's value to its
// value log and frees the old ones only when a GC rewrites a file that is
// mostly stale. Redis must cost no more per key for a record written in
// more than one call; written once, Redis's allocator rounds the value up
// (a 1,808-byte value takes 2,048 bytes) and both are logged.
func TestSeenStoreCostPerKey(t *testing.T) {
	addr := redistest.Start(t)
	ctx := context.Background()
	rrecs, rdb := seenRecords(t, addr, nil)
	const keys = 200
	for _, step := range []int{0, 50} {
		for _, ids := range []int{10, 1000, 5000} {
			dir := t.TempDir()
			db, err := storage.Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			brecs, err := seen.New(db, nil)
			if err != nil {
				t.Fatal(err)
			}
			list := make([]string, ids)
			for i := range list {
				list[i] = fmt.Sprintf("id%012d", i) // 14 bytes, as the seed's article ids
			}
			var redisBytes int64
			var valBytes int
			for k := range keys {
				key := fmt.Sprintf("reader-%d-%d-%05d", step, ids, k)
				chunk := cmp.Or(step, seen.DefaultMaxIDs)
				for _, r := range []*seen.Records{rrecs, brecs} {
					for i := 0; i < ids; i += chunk {
						if _, err := r.Add(ctx, key, list[i:min(i+chunk, ids)]); err != nil {
							t.Fatal(err)
						}
					}
				}
				n, err := rdb.MemoryUsage(ctx, "bloomcrawl:seen:"+key, 0).Result()
				if err != nil {
					t.Fatal(err)
				}
				redisBytes += n
				rec, _ := rrecs.Show(ctx, key, false)
				valBytes += rec.Bytes
			}
			if err := db.GC(); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			badgerBytes := dirBytes(t, dir)
			how := "at once"
			if step > 0 {
				how = fmt.Sprintf("%d a call", step)
			}
			t.Logf("%d ids a key, %s (value %d bytes): Redis %d bytes a key (MEMORY USAGE), Badger %d a key on disk",
				ids, how, valBytes/keys, redisBytes/keys, badgerBytes/keys)
			if writes := (ids + cmp.Or(step, seen.DefaultMaxIDs) - 1) / cmp.Or(step, seen.DefaultMaxIDs); writes > 1 && redisBytes > badgerBytes {
				t.Errorf("%d ids a key, %s: Redis %d bytes a key, more than Badger's %d", ids, how, redisBytes/keys, badgerBytes/keys)
			}
		}
	}
}

// dirBytes sums the sizes of dir's value logs and tables.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if name := e.Name(); strings.HasSuffix(name, ".vlog") || strings.HasSuffix(name, ".sst") {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			n += fi.Size()
		}
	}
	return n
}
