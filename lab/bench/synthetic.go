package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/lab/synthsite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// SyntheticOptions configure [Synthetic]: crawls of generated sites
// (package synthsite) of several sizes, one after the other, each into a
// fresh store.
type SyntheticOptions struct {
	// Sizes are the site sizes in pages, one crawl each, in order.
	Sizes []int
	// Seed generates the sites (the same seed serves the same pages).
	Seed uint64
	// Serve starts serving site on loopback and returns its base URL
	// ("http://127.0.0.1:PORT") and a function that stops it. Required
	// ([ChildServe], or an httptest server in tests).
	Serve func(ctx context.Context, site synthsite.Site) (base string, stop func(), err error)
	// Crawl starts a crawl of seed into the (absent) store directory with
	// the crawler's defaults. Required ([ChildCrawl], or an in-process
	// crawl in tests).
	Crawl func(ctx context.Context, seed, store string) (*CrawlProcess, error)
	// TempDir holds the stores while they are measured ("" = os.TempDir()).
	// Each store is removed after its row is measured.
	TempDir string
	// SampleEvery is how often RssAnon is read. Default 200ms.
	SampleEvery time.Duration
	// Lock, if set, is a file flocked around each crawl (not around the
	// whole run, so that others get the machine between sizes).
	Lock string
	// Log receives progress lines; nil discards.
	Log io.Writer
}

// CrawlProcess is a running crawl whose memory Synthetic samples.
type CrawlProcess struct {
	// PID is the process doing the crawl (/proc/PID/status is sampled).
	PID int
	// Wait blocks until the crawl ends and returns its summary.
	Wait func() (crawler.Stats, error)
	// LiveHeap returns the Go live heap (bytes marked by the last
	// collection) and the largest seen so far; nil when unknown.
	LiveHeap func() (last, peak int64)
	// CPU returns the CPU time (user + system) the process used, once Wait
	// has returned; nil when unknown. On a shared machine CPU time per
	// page is steadier than pages/s.
	CPU func() time.Duration
}

// SyntheticRow is the measurement of one crawl.
type SyntheticRow struct {
	SitePages      int     `json:"site_pages"`
	Seconds        float64 `json:"seconds"`
	PagesPerSecond float64 `json:"pages_per_second"`          // (stored + duplicates) / seconds
	CPUPerPage     float64 `json:"cpu_us_per_page,omitempty"` // CPU time of the crawl process (user + system) per page, µs
	Fetched        int64   `json:"fetched"`
	Stored         int64   `json:"stored"`
	Duplicates     int64   `json:"duplicates"`
	Errors         int64   `json:"errors"`
	// The URL filter's false positives (crawled anyway, with dedup.verify)
	// and the store reads that confirmed its "seen" answers (and those
	// confirmed in memory).
	FilterFalsePositives *uint64 `json:"filter_false_positives,omitempty"`
	FilterStoreReads     uint64  `json:"filter_store_reads,omitempty"`
	FilterStoreKeys      uint64  `json:"filter_store_keys,omitempty"`
	FilterMemoryHits     uint64  `json:"filter_memory_hits,omitempty"`
	RssAnonPeak          int64   `json:"rss_anon_peak_bytes"`
	RssAnonEnd           int64   `json:"rss_anon_end_bytes"` // the last sample before the process ended
	// The resident part of the crawl's arrays in memory-mapped files
	// (internal/mapped: the dedup index, the verify cache): page cache,
	// not in RssAnon; sampled every 10 RssAnon samples.
	MappedArraysPeak int64   `json:"mapped_arrays_rss_peak_bytes,omitempty"`
	MappedArraysEnd  int64   `json:"mapped_arrays_rss_end_bytes,omitempty"`
	LiveHeapEnd      int64   `json:"live_heap_end_bytes,omitempty"`
	LiveHeapPeak     int64   `json:"live_heap_peak_bytes,omitempty"`
	DiskBytes        int64   `json:"disk_bytes"` // allocated blocks of the closed store
	DiskBytesPerPage float64 `json:"disk_bytes_per_page"`
	// Ground truth, read back from the store.
	Missing         int `json:"missing"`           // pages with no URL record mapping to a document
	NearCopies      int `json:"near_copies"`       // in the site
	NearCopiesFound int `json:"near_copies_found"` // mapped to the document of the page they copy
	FalseMerges     int `json:"false_merges"`      // originals mapped to the document of another original
	Documents       int `json:"documents"`         // distinct documents the site's pages map to
	// Crawl order: the site's largest link distance from the seed, the
	// deepest stored page's depth, and the stored pages whose depth is
	// more than their distance (reached first along a longer path: a
	// crawl that is not breadth-first, whose scope.max_depth then drops
	// pages near the seed).
	SiteMaxDistance    int `json:"site_max_distance"`
	MaxDepth           int `json:"max_depth"`
	DeeperThanDistance int `json:"deeper_than_distance"`
}

// Synthetic crawls a generated site of each size in o.Sizes and measures
// it. A failed crawl stops the run; the rows measured so far are returned
// with the error.
func Synthetic(ctx context.Context, o SyntheticOptions) ([]SyntheticRow, error) {
	if o.Serve == nil || o.Crawl == nil {
		return nil, errors.New("bench: SyntheticOptions.Serve and Crawl are required")
	}
	if len(o.Sizes) == 0 {
		return nil, errors.New("bench: no sizes")
	}
	for _, n := range o.Sizes {
		if n < 1 {
			return nil, fmt.Errorf("bench: site size %d (want >= 1)", n)
		}
	}
	if o.SampleEvery <= 0 {
		o.SampleEvery = 200 * time.Millisecond
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	var rows []SyntheticRow
	for _, n := range o.Sizes {
		row, err := syntheticOne(ctx, o, n, logw)
		if err != nil {
			return rows, fmt.Errorf("bench synthetic %d pages: %w", n, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func syntheticOne(ctx context.Context, o SyntheticOptions, n int, logw io.Writer) (row SyntheticRow, err error) {
	site, err := synthsite.New(n, o.Seed)
	if err != nil {
		return row, err
	}
	row.SitePages = n
	work, err := os.MkdirTemp(o.TempDir, "bloomcrawl-synthetic-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(work)
	store := filepath.Join(work, "store")

	if o.Lock != "" {
		unlock, err := flock(ctx, o.Lock, logw)
		if err != nil {
			return row, err
		}
		defer unlock()
	}
	base, stop, err := o.Serve(ctx, site)
	if err != nil {
		return row, fmt.Errorf("serve: %w", err)
	}
	defer stop()
	fmt.Fprintf(logw, "synthetic %d pages: crawling %s%s ...\n", n, base, synthsite.SeedPath)
	p, err := o.Crawl(ctx, base+synthsite.SeedPath, store)
	if err != nil {
		return row, fmt.Errorf("crawl: %w", err)
	}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(o.SampleEvery)
		defer t.Stop()
		for i := 0; ; i++ {
			if v, err := RssAnon(p.PID); err == nil {
				row.RssAnonEnd = v
				row.RssAnonPeak = max(row.RssAnonPeak, v)
			}
			if i%10 == 0 {
				if v, err := MappedArrays(p.PID); err == nil {
					row.MappedArraysEnd = v
					row.MappedArraysPeak = max(row.MappedArraysPeak, v)
				}
			}
			select {
			case <-sampleCtx.Done():
				return
			case <-t.C:
			}
		}
	}()
	st, err := p.Wait()
	stopSampling()
	wg.Wait()
	if err != nil {
		return row, err
	}
	if p.LiveHeap != nil {
		row.LiveHeapEnd, row.LiveHeapPeak = p.LiveHeap()
	}
	if p.CPU != nil && st.Stored+st.Duplicates > 0 {
		row.CPUPerPage = float64(p.CPU().Microseconds()) / float64(st.Stored+st.Duplicates)
	}
	row.Seconds, row.Fetched, row.Stored, row.Duplicates, row.Errors = st.Seconds, st.Fetched, st.Stored, st.Duplicates, st.Errors
	row.FilterFalsePositives, row.FilterStoreReads, row.FilterStoreKeys = st.FalsePositives, st.FilterStoreReads, st.FilterStoreKeys
	row.FilterMemoryHits = st.FilterMemoryHits
	if st.Seconds > 0 {
		row.PagesPerSecond = float64(st.Stored+st.Duplicates) / st.Seconds
	}
	stop()
	if row.DiskBytes, err = diskUsage(store); err != nil {
		return row, err
	}
	if st.Stored > 0 {
		row.DiskBytesPerPage = float64(row.DiskBytes) / float64(st.Stored+st.Duplicates)
	}
	if err := CheckTruth(site, store, &row); err != nil {
		return row, err
	}
	fmt.Fprintf(logw, "synthetic %d pages: %.0f pages/s, RssAnon peak %.0f MB, missing %d\n", n, row.PagesPerSecond, mb(row.RssAnonPeak), row.Missing)
	return row, nil
}

// CheckTruth reads the store a crawl of site left in dir and fills the
// ground-truth fields of row: pages not mapped to any document, near-copies
// found, originals merged with another original, documents.
func CheckTruth(site synthsite.Site, dir string, row *SyntheticRow) error {
	db, err := storage.Open(dir, &storage.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	docs := make([]uint64, site.N) // page → docId (0: none)
	err = db.ForEachURL(context.Background(), func(r storage.URLRecord) error {
		if i, ok := site.PageIndex(r.URL); ok && r.DocID != 0 {
			docs[i] = uint64(r.DocID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read back %s: %w", dir, err)
	}
	row.Missing, row.NearCopies, row.NearCopiesFound = 0, site.NearCopies(), 0
	originals := make([]uint64, 0, site.Originals())
	all := make([]uint64, 0, site.N)
	for i, id := range docs {
		if id == 0 {
			row.Missing++
			continue
		}
		all = append(all, id)
		if orig, ok := synthsite.NearCopyOf(i); ok {
			if docs[orig] == id {
				row.NearCopiesFound++
			}
			continue
		}
		originals = append(originals, id)
	}
	slices.Sort(originals)
	row.FalseMerges = len(originals) - len(slices.Compact(originals))
	slices.Sort(all)
	row.Documents = len(slices.Compact(all))
	return checkDepths(site, db, row)
}

// checkDepths compares the depth of every stored page with its link
// distance from the seed page.
func checkDepths(site synthsite.Site, db *storage.DB, row *SyntheticRow) error {
	dist := site.Distances()
	row.SiteMaxDistance, row.MaxDepth, row.DeeperThanDistance = int(slices.Max(dist)), 0, 0
	for after := ""; ; {
		pages, next, err := db.List(context.Background(), storage.ListOptions{Limit: 10_000, After: after})
		if err != nil {
			return fmt.Errorf("read back page depths: %w", err)
		}
		for _, p := range pages {
			row.MaxDepth = max(row.MaxDepth, p.Depth)
			if i, ok := site.PageIndex(p.URL); ok && p.Depth > int(dist[i]) {
				row.DeeperThanDistance++
			}
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// RssAnon returns the anonymous resident memory of process pid (RssAnon in
// /proc/PID/status): the heap and stacks, not mapped files such as
// Badger's tables and value log.
func RssAnon(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, fmt.Errorf("bench: no RssAnon in /proc/%d/status", pid)
}

// mappedArraysFile is in the name of internal/mapped's files.
const mappedArraysFile = "bloomcrawl-arrays-"

// MappedArrays returns the resident bytes of process pid's mappings of
// internal/mapped's array files (from /proc/PID/smaps).
func MappedArrays(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps")
	if err != nil {
		return 0, err
	}
	var total int64
	in := false
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if !strings.HasSuffix(f[0], ":") { // a mapping's header line
			in = len(f) >= 6 && strings.Contains(f[5], mappedArraysFile)
			continue
		}
		if in && f[0] == "Rss:" && len(f) == 3 {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("bench: /proc/%d/smaps: %q: %w", pid, line, err)
			}
			total += kb << 10
		}
	}
	return total, nil
}

// diskUsage returns the bytes allocated to the files under dir.
func diskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += fi.Size()
		}
		return nil
	})
	return total, err
}

// flock takes an exclusive lock on path, logging while it waits; it gives
// up with ctx.Err() when ctx is done (it polls: a blocking flock cannot be
// interrupted).
func flock(ctx context.Context, path string, logw io.Writer) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("bench: lock: %w", err)
	}
	for waited := false; ; waited = true {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("bench: lock %s: %w", path, err)
		}
		if !waited {
			fmt.Fprintf(logw, "waiting for %s ...\n", path)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// ServeSite serves site on addr (e.g. "127.0.0.1:0"), writes its base URL
// as one line to w once it listens, and serves until ctx is done: the
// helper process of [ChildServe].
func ServeSite(ctx context.Context, site synthsite.Site, addr string, w io.Writer) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(w, "http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ChildServe returns a SyntheticOptions.Serve that runs the site in a
// helper process: exe with args and "--site-pages N --site-seed S"
// appended, which must run [ServeSite] on loopback and print the base URL
// as its first line of output. A separate process keeps the site's CPU and
// memory out of the crawler's figures.
func ChildServe(exe string, args ...string) func(ctx context.Context, site synthsite.Site) (string, func(), error) {
	return func(ctx context.Context, site synthsite.Site) (string, func(), error) {
		argv := append(slices.Clone(args), "--site-pages", strconv.Itoa(site.N), "--site-seed", strconv.FormatUint(site.Seed, 10))
		cmd := exec.Command(exe, argv...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return "", nil, err
		}
		if err := cmd.Start(); err != nil {
			return "", nil, err
		}
		var once sync.Once
		stop := func() {
			once.Do(func() {
				cmd.Process.Signal(syscall.SIGTERM)
				cmd.Wait()
			})
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			stop()
			return "", nil, fmt.Errorf("site helper %s: no address: %w", exe, err)
		}
		base := strings.TrimSpace(line)
		if !strings.HasPrefix(base, "http://127.0.0.1:") {
			stop()
			return "", nil, fmt.Errorf("site helper %s: unexpected first line %q", exe, base)
		}
		return base, stop, nil
	}
}

// gcTraceRe matches a GODEBUG=gctrace=1 line's heap sizes: "A->B->C MB",
// C being the live heap the collection marked.
var gcTraceRe = regexp.MustCompile(`^gc \d+ @.* (\d+)->(\d+)->(\d+) MB`)

// ChildCrawl returns a SyntheticOptions.Crawl that runs exe with args and
// "--seed SEED --store STORE --json" appended (the crawl command with its
// defaults), with GODEBUG=gctrace=1 so that the live heap is read from the
// collector's trace (up to the crawl's "crawl finished" log line), and
// decodes the JSON summary it prints on stdout. The child's other stderr
// lines go to logw.
func ChildCrawl(exe string, logw io.Writer, args ...string) func(ctx context.Context, seed, store string) (*CrawlProcess, error) {
	return func(ctx context.Context, seed, store string) (*CrawlProcess, error) {
		argv := append(slices.Clone(args), "--seed", seed, "--store", store, "--json")
		cmd := exec.CommandContext(ctx, exe, argv...)
		cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
		var stdout strings.Builder
		cmd.Stdout = &stdout
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		var mu sync.Mutex
		var last, peak int64
		finished := false // the crawl has logged its end: later collections are the exit's
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(errPipe)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				line := sc.Text()
				if m := gcTraceRe.FindStringSubmatch(line); m != nil {
					v, _ := strconv.ParseInt(m[3], 10, 64)
					mu.Lock()
					if !finished {
						last, peak = v<<20, max(peak, v<<20)
					}
					mu.Unlock()
					continue
				}
				if strings.Contains(line, `msg="crawl finished"`) {
					mu.Lock()
					finished = true
					mu.Unlock()
				}
				if logw != nil {
					fmt.Fprintln(logw, line)
				}
			}
		}()
		return &CrawlProcess{
			PID: cmd.Process.Pid,
			Wait: func() (crawler.Stats, error) {
				<-done
				var st crawler.Stats
				if err := cmd.Wait(); err != nil {
					return st, fmt.Errorf("%s: %w", exe, err)
				}
				if err := json.Unmarshal([]byte(stdout.String()), &st); err != nil {
					return st, fmt.Errorf("%s: summary %q: %w", exe, stdout.String(), err)
				}
				return st, nil
			},
			LiveHeap: func() (int64, int64) {
				mu.Lock()
				defer mu.Unlock()
				return last, peak
			},
			CPU: func() time.Duration {
				if cmd.ProcessState == nil {
					return 0
				}
				return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			},
		}, nil
	}
}

// WriteSyntheticTable prints rows as a table, then the growth between
// consecutive sizes: RssAnon (peak) per stored page, and pages/s relative
// to the first row.
func WriteSyntheticTable(w io.Writer, rows []SyntheticRow) {
	fmt.Fprintf(w, "%10s %8s %8s %8s %10s %10s %10s %10s %10s %10s %11s %8s %13s %7s %11s\n",
		"pages", "seconds", "pages/s", "CPU µs/p", "stored", "dups", "RssAnon pk", "RssAnon end", "heap live", "mapped pk", "disk B/page", "missing", "near-copies", "merged", "depth/dist")
	for _, r := range rows {
		fmt.Fprintf(w, "%10d %8.1f %8.0f %8.0f %10d %10d %7.0f MB %8.0f MB %7.0f MB %7.0f MB %11.0f %8d %6d/%-6d %7d %5d/%-5d\n",
			r.SitePages, r.Seconds, r.PagesPerSecond, r.CPUPerPage, r.Stored, r.Duplicates, mb(r.RssAnonPeak), mb(r.RssAnonEnd), mb(r.LiveHeapEnd), mb(r.MappedArraysPeak),
			r.DiskBytesPerPage, r.Missing, r.NearCopiesFound, r.NearCopies, r.FalseMerges, r.MaxDepth, r.SiteMaxDistance)
	}
	for i := 1; i < len(rows); i++ {
		a, b := rows[0], rows[i]
		fmt.Fprintf(w, "%d → %d pages: RssAnon peak %+.0f B, end %+.0f B, live heap %+.0f B per stored page; pages/s %.2fx, CPU per page %.2fx\n",
			a.SitePages, b.SitePages, GrowthPerPage(a, b, func(r SyntheticRow) int64 { return r.RssAnonPeak }),
			GrowthPerPage(a, b, func(r SyntheticRow) int64 { return r.RssAnonEnd }),
			GrowthPerPage(a, b, func(r SyntheticRow) int64 { return r.LiveHeapEnd }), b.PagesPerSecond/a.PagesPerSecond, b.CPUPerPage/a.CPUPerPage)
	}
}

// GrowthPerPage returns how many bytes of the figure f grew per stored
// document from row a to row b.
func GrowthPerPage(a, b SyntheticRow, f func(SyntheticRow) int64) float64 {
	if b.Stored == a.Stored {
		return 0
	}
	return float64(f(b)-f(a)) / float64(b.Stored-a.Stored)
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }
