package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
	"github.com/bloomcrawl/bloomcrawl/lab/synthsite"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// serveHTTPTest serves a site from this process (tests only: the command
// uses ChildServe).
func serveHTTPTest(_ context.Context, site synthsite.Site) (string, func(), error) {
	srv := httptest.NewServer(site)
	return srv.URL, srv.Close, nil
}

// crawlInProcess crawls with the crawler's defaults in this process, wired
// as the crawl command wires it.
func crawlInProcess(t *testing.T) func(ctx context.Context, seed, store string) (*CrawlProcess, error) {
	return func(ctx context.Context, seed, store string) (*CrawlProcess, error) {
		cfg := configs.Default()
		cfg.Seeds = []string{seed}
		cfg.Store.Dir = store
		db, err := storage.Open(store, nil)
		if err != nil {
			return nil, err
		}
		filter, err := urlfilter.New(urlfilter.Options{Capacity: cfg.Dedup.Capacity, TargetFP: cfg.Dedup.TargetFP})
		if err != nil {
			db.Close()
			return nil, err
		}
		dd, err := contentdedup.New(crawler.DedupOptions(cfg.Dedup))
		if err != nil {
			db.Close()
			return nil, err
		}
		o, err := crawler.NewOptions(cfg, crawler.Options{Store: db, URLFilter: filter, Dedup: dd}, false)
		if err != nil {
			db.Close()
			return nil, err
		}
		c, err := crawler.New(o)
		if err != nil {
			db.Close()
			return nil, err
		}
		type result struct {
			st  crawler.Stats
			err error
		}
		done := make(chan result, 1)
		go func() {
			st, err := c.Run(ctx)
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			done <- result{st, err}
		}()
		return &CrawlProcess{
			PID: os.Getpid(),
			Wait: func() (crawler.Stats, error) {
				r := <-done
				return r.st, r.err
			},
			LiveHeap: func() (int64, int64) {
				s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
				metrics.Read(s)
				v := int64(s[0].Value.Uint64())
				return v, v
			},
		}, nil
	}
}

// TestSyntheticCountsTruth crawls a 300-page site and checks every figure
// against the site's ground truth: 300 pages, 30 near-copies, 270
// documents, nothing lost or merged.
func TestSyntheticCountsTruth(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rows, err := Synthetic(ctx, SyntheticOptions{
		Sizes: []int{300}, Seed: 1, Serve: serveHTTPTest, Crawl: crawlInProcess(t), TempDir: t.TempDir(),
		SampleEvery: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	t.Logf("%+v", r)
	want := SyntheticRow{SitePages: 300, Stored: 270, Duplicates: 30, Fetched: 300, NearCopies: 30, NearCopiesFound: 30, Documents: 270}
	got := SyntheticRow{SitePages: r.SitePages, Stored: r.Stored, Duplicates: r.Duplicates, Fetched: r.Fetched,
		Missing: r.Missing, NearCopies: r.NearCopies, NearCopiesFound: r.NearCopiesFound, FalseMerges: r.FalseMerges, Documents: r.Documents, Errors: r.Errors}
	if got != want {
		t.Errorf("counts:\n got %+v\nwant %+v", got, want)
	}
	if r.RssAnonPeak <= 0 || r.RssAnonEnd <= 0 || r.RssAnonEnd > r.RssAnonPeak {
		t.Errorf("RssAnon peak %d end %d", r.RssAnonPeak, r.RssAnonEnd)
	}
	if r.DiskBytes <= 0 || r.DiskBytesPerPage != float64(r.DiskBytes)/300 {
		t.Errorf("disk %d bytes, %v per page", r.DiskBytes, r.DiskBytesPerPage)
	}
	if r.PagesPerSecond <= 0 || r.PagesPerSecond != 300/r.Seconds {
		t.Errorf("pages/s %v over %v s", r.PagesPerSecond, r.Seconds)
	}
}

// TestCheckTruthCountsMistakes writes a store by hand with known mistakes
// (a page missing, a near-copy stored as its own document, two originals
// merged) and checks that CheckTruth counts each.
func TestCheckTruthCountsMistakes(t *testing.T) {
	site, err := synthsite.New(30, 7) // near-copies: 9, 19, 29
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "store")
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base := "http://127.0.0.1:1"
	dist := site.Distances()
	put := func(i int, doc uint64, dup bool) {
		t.Helper()
		c := storage.Commit{}
		if dup {
			c.URL = &storage.URLRecord{URL: base + synthsite.Path(i), DocID: storage.DocID(doc), Duplicate: true, Reason: "content", Status: 200}
		} else {
			depth := int(dist[i])
			if i == 7 { // reached first along a longer path
				depth += 3
			}
			c.Page = &storage.Page{DocID: storage.DocID(doc), URL: base + synthsite.Path(i), Status: 200, Title: site.Title(i), Text: site.Text(i), Depth: depth}
		}
		if _, err := db.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		switch {
		case i == 4: // missing
		case i == 6: // merged into 5's document
			put(i, 100+5, true)
		case i == 19: // a near-copy not found: its own document
			put(i, 1000+19, false)
		case i%10 == 9:
			put(i, uint64(100+i-1), true)
		default:
			put(i, uint64(100+i), false)
		}
	}
	// a URL of another site and a record without a document are ignored
	if _, err := db.Commit(ctx, storage.Commit{URL: &storage.URLRecord{URL: base + "/robots.txt", Status: 200}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(ctx, storage.Commit{URL: &storage.URLRecord{URL: base + "/p/30", DocID: 100, Duplicate: true, Reason: "content", Status: 200}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	var r SyntheticRow
	if err := CheckTruth(site, dir, &r); err != nil {
		t.Fatal(err)
	}
	// documents: 0..29 less 4 (missing), 6 (merged), 9/29 (found copies) = 26
	// depths: page 7 stored 3 links deeper than its distance
	maxDist := int(slices.Max(dist))
	want := SyntheticRow{Missing: 1, NearCopies: 3, NearCopiesFound: 2, FalseMerges: 1, Documents: 26,
		SiteMaxDistance: maxDist, MaxDepth: max(maxDist, int(dist[7])+3), DeeperThanDistance: 1}
	if r != want {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
}

// TestMain turns the test binary into the site helper of ChildServe when
// BLOOMCRAWL_TEST_SITE_HELPER is set (the command runs itself the same way).
func TestMain(m *testing.M) {
	if os.Getenv("BLOOMCRAWL_TEST_SITE_HELPER") == "1" {
		fs := flag.NewFlagSet("helper", flag.ExitOnError)
		n := fs.Int("site-pages", 0, "")
		seed := fs.Uint64("site-seed", 0, "")
		fs.Parse(os.Args[1:])
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := ServeSite(ctx, synthsite.Site{N: *n, Seed: *seed}, "127.0.0.1:0", os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestChildServe runs the site in a helper process and fetches a page of
// it: the same bytes as the site generates here.
func TestChildServe(t *testing.T) {
	t.Setenv("BLOOMCRAWL_TEST_SITE_HELPER", "1")
	site := synthsite.Site{N: 40, Seed: 5}
	base, stop, err := ChildServe(os.Args[0])(context.Background(), site)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	res, err := http.Get(base + synthsite.Path(39))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var want bytes.Buffer
	site.WritePage(&want, 39)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("served page differs:\n%s\nwant\n%s", got, want.Bytes())
	}
}

// TestMappedArrays maps arrays in this process (internal/mapped) and
// finds their resident bytes in /proc/self/smaps: those touched, not
// those only mapped.
func TestMappedArrays(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skip("no /proc/PID/smaps here")
	}
	before, err := MappedArrays(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapped.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	touched := mapped.Make[byte](f, 8<<20)
	untouched := mapped.Make[byte](f, 8<<20)
	for i := 0; i < len(touched); i += 4096 {
		touched[i] = 1
	}
	got, err := MappedArrays(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := got - before; d < 8<<20 || d >= 12<<20 {
		t.Errorf("%d resident bytes of mapped arrays added for 8 MiB touched and 8 MiB mapped only", d)
	}
	mapped.Free(f, untouched)
}

func TestGCTraceLine(t *testing.T) {
	m := gcTraceRe.FindStringSubmatch("gc 14 @2.514s 3%: 0.047+12+0.026 ms clock, 0.094+0.61/5.7/0+0.052 ms cpu, 91->93->47 MB, 96 MB goal, 0 MB stacks, 0 MB globals, 2 P")
	if m == nil || m[3] != "47" {
		t.Errorf("live heap of a gctrace line: %q", m)
	}
	if gcTraceRe.MatchString(`time=2026-11-23T09:02:57Z level=INFO msg="crawl started"`) {
		t.Error("a log line matched")
	}
}

// TestFlockWaitsAndGivesUp: a held lock makes flock wait until its context
// ends; once released, flock takes it.
func TestFlockWaitsAndGivesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	holder, err := flock(context.Background(), path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var log syncBuffer
	go func() {
		for !strings.Contains(log.String(), "waiting for") {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := flock(ctx, path, &log); !errors.Is(err, context.Canceled) {
		t.Fatalf("flock on a held lock: %v, want context.Canceled", err)
	}
	holder()
	unlock, err := flock(context.Background(), path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
