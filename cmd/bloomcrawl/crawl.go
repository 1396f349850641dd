package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/term"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		name:    "crawl",
		summary: "crawl from a YAML config or --seed URLs into a store (resumes an interrupted crawl)",
		run:     runCrawlCmd,
	})
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// crawlFlags are the crawl command's flags.
type crawlFlags struct {
	seeds        stringList
	store        *string
	warcDir      *string
	wacz         *string
	asJSON       *bool
	continuous   *bool
	refresh      *time.Duration
	audit        *bool
	mappedArrays *bool
	verbose      *bool
	serveAddr    *string
	token        *string
	cpuProfile   *string
	mutexProfile *string
	memProfile   *string
	clusterURL   *string
	node         *string
	partitions   *int
	leaseTTL     *time.Duration
	memLimit     *int64
}

// newCrawlFlags declares the crawl command's flags.
func newCrawlFlags(stderr io.Writer) (*flag.FlagSet, *crawlFlags) {
	fs := newFlagSet("crawl", "crawl [CONFIG.yaml] [--seed URL ...] [--store DIR] [--warc DIR] [--continuous [--refresh D]] [--json] [--audit] [--serve ADDR [--token T]]", stderr)
	f := &crawlFlags{}
	fs.Var(&f.seeds, "seed", "seed URL (repeatable); replaces the config's seeds")
	f.store = fs.String("store", "", "store directory (overrides store.dir; default "+configs.DefaultStoreDir+")")
	f.warcDir = fs.String("warc", "", "write the crawl as gzipped WARC/1.1 files into this directory (overrides store.warc_dir)")
	f.wacz = fs.String("wacz", "", "with --warc: when the crawl ends, package the WARC directory and the store's pages as this new WACZ file")
	f.asJSON = fs.Bool("json", false, "print the final summary as JSON on stdout")
	f.continuous = fs.Bool("continuous", false, "keep crawling when the queue is empty, waiting for the next refresh, until Ctrl-C (recrawl.continuous)")
	f.refresh = fs.Duration("refresh", 0, "with --continuous: fetch the seeds again this often, e.g. 5m (recrawl.seeds_every)")
	f.audit = fs.Bool("audit", false, "run an exact shadow set beside the URL filter and count its false positives (nothing is lost)")
	f.mappedArrays = fs.Bool("mapped-arrays", true, "keep the dedup index's and the verify cache's large arrays in memory-mapped files in the store directory (page cache, not Go heap; measured at 2M pages: half the RssAnon, the same CPU shares in the code that uses them); --mapped-arrays=false keeps them on the Go heap")
	f.verbose = fs.Bool("v", false, "log every failed URL")
	f.serveAddr = fs.String("serve", "", "also serve the HTTP API (as 'bloomcrawl serve') on this address while the crawl runs")
	f.token = fs.String("token", "", "with --serve: bearer token required on every request except /healthz (default $BLOOMCRAWL_TOKEN); needed for a non-loopback address")
	f.cpuProfile = fs.String("cpuprofile", "", "write a CPU profile of the crawl to this file")
	f.mutexProfile = fs.String("mutexprofile", "", "write a profile of the crawl's lock contention (1 in 5 contended sync.Mutex waits sampled) to this file when the crawl ends")
	f.memProfile = fs.String("memprofile", "", "write a heap profile to this file when the crawl ends (after a GC, with the crawl's state still live), and to FILE.peak whenever the live heap reaches a new high (10% above the last)")
	f.clusterURL = fs.String("cluster", "", "crawl as one node of a cluster coordinated through Redis at redis://HOST:PORT/DB, or a Redis Cluster at redis+cluster://HOST:PORT[?addr=HOST:PORT...] (see docs/cluster.md)")
	f.node = fs.String("node", "", "with --cluster: this node's name (default HOSTNAME-PID); a node restarted under its name takes back its pending entries")
	f.partitions = fs.Int("partitions", 16, "with --cluster: partitions the hosts are spread over (the same on every node, checked); a Redis Cluster spreads at most this many partitions' keys over its shards")
	f.leaseTTL = fs.Duration("lease-ttl", 10*time.Second, "with --cluster: how long a partition lease lives unrenewed; a dead node's partitions and pages in flight are taken over after about this long")
	f.memLimit = fs.Int64("mem-limit-mb", 300, "soft limit on the Go heap in MiB (runtime/debug.SetMemoryLimit), raised as the crawl's lasting state outgrows it; 0 = none; the GOMEMLIMIT environment variable wins")
	return fs, f
}

func runCrawlCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, f := newCrawlFlags(stderr)
	// Flags may come before and after the config file name.
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var configPath string
	if rest := fs.Args(); len(rest) > 0 {
		configPath = rest[0]
		if err := parseFlags(fs, rest[1:]); err != nil {
			return err
		}
		if len(fs.Args()) > 0 {
			return usagef("unexpected argument %q (one config file at most)", fs.Args()[0])
		}
	}

	cfg, err := crawlConfig(configPath, f)
	if err != nil {
		return err
	}
	ln, err := serveListener(ctx, f)
	if err != nil {
		return err
	}
	if ln != nil {
		defer ln.Close()
	}
	stopProfiling, err := startProfiling(ctx, f, stderr)
	defer stopProfiling()
	if err != nil {
		return err
	}
	if *f.partitions < 1 || *f.partitions > cluster.MaxPartitions {
		return usagef("--partitions %d: want 1 to %d", *f.partitions, cluster.MaxPartitions)
	}
	if *f.clusterURL == "" && (*f.node != "") {
		return usagef("--node needs --cluster")
	}
	if *f.clusterURL != "" && *f.audit {
		return usagef("--audit does not work with --cluster: the cluster's seen-state lives in Redis; with dedup.verify (the default) its false positives are confirmed and counted exactly (filter_false_positives)")
	}
	if *f.clusterURL != "" {
		if err := crawler.CheckCluster(cfg); err != nil {
			return usagef("--cluster: %v", err)
		}
	}
	st, err := crawlStore(ctx, cfg, crawlRun{wacz: *f.wacz, audit: *f.audit, heapArrays: !*f.mappedArrays, verbose: *f.verbose, stderr: stderr, serve: ln, token: *f.token, memProfile: *f.memProfile,
		cluster: crawler.ClusterOptions(cfg.Dedup, cluster.Options{URL: *f.clusterURL, Node: *f.node, LeaseTTL: *f.leaseTTL, Partitions: *f.partitions})})
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "interrupted: run the same command again to resume")
	}
	if st != nil {
		if *f.asJSON {
			if jerr := json.NewEncoder(stdout).Encode(st); jerr != nil && err == nil {
				err = jerr
			}
		} else {
			printSummary(stdout, st, cfg.Store.Dir)
		}
	}
	return err
}

// crawlConfig loads the config file (configs.Default without one), applies
// the flags that override it and validates the result.
func crawlConfig(configPath string, f *crawlFlags) (*configs.Config, error) {
	cfg := configs.Default()
	if configPath != "" {
		var err error
		if cfg, err = configs.Load(configPath); err != nil {
			return nil, err
		}
	}
	if len(f.seeds) > 0 {
		cfg.Seeds = f.seeds
	}
	if *f.store != "" {
		cfg.Store.Dir = *f.store
	}
	if *f.warcDir != "" {
		cfg.Store.WARCDir = *f.warcDir
	}
	if *f.continuous {
		cfg.Recrawl.Continuous = true
	}
	if *f.refresh != 0 {
		cfg.Recrawl.SeedsEvery = configs.Duration(*f.refresh)
	}
	if *f.wacz != "" && cfg.Store.WARCDir == "" {
		return nil, usagef("--wacz needs --warc DIR (or store.warc_dir)")
	}
	if len(cfg.Seeds) == 0 {
		return nil, usagef("no seeds: give a config file with seeds, or --seed URL")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// serveListener listens on --serve's address (nil without --serve) before
// the crawl starts, so that a busy port is an error now, not after the
// crawl has begun.
func serveListener(ctx context.Context, f *crawlFlags) (net.Listener, error) {
	if *f.serveAddr == "" {
		return nil, nil
	}
	if *f.token == "" {
		*f.token = os.Getenv("BLOOMCRAWL_TOKEN")
	}
	if err := api.CheckAddr(*f.serveAddr, *f.token != ""); err != nil {
		if errors.Is(err, api.ErrNeedToken) {
			return nil, usagef("--serve %s is not a loopback address: pass --token T (or set BLOOMCRAWL_TOKEN)", *f.serveAddr)
		}
		return nil, usagef("--serve: %v", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *f.serveAddr)
	if err != nil {
		return nil, fmt.Errorf("--serve %s: %w", *f.serveAddr, err)
	}
	return ln, nil
}

// startProfiling starts what watches the crawl's memory and CPU
// (--mem-limit-mb, --memprofile's peaks, --cpuprofile, --mutexprofile).
// stop, to be called even when err is set, ends them and writes the
// profiles.
func startProfiling(ctx context.Context, f *crawlFlags, stderr io.Writer) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	// Without a limit the GC lets the heap grow to twice the live heap, and
	// a multi-MB page parsed into a DOM makes that peak high.
	// The samplers below end with the command (run in-process, as the
	// tests do, a leftover follower would keep moving the process's memory
	// limit), and the limit is given back as it was.
	samplers, stopSamplers := context.WithCancel(ctx)
	var sampling sync.WaitGroup
	memLimitBefore := debug.SetMemoryLimit(-1)
	stops = append(stops, func() { stopSamplers(); sampling.Wait(); debug.SetMemoryLimit(memLimitBefore) })
	if *f.memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		ceiling, source := memCeiling()
		warn := slog.New(slog.NewTextHandler(stderr, nil)).With("memory_ceiling_from", source).Warn
		sampling.Go(func() { followMemLimit(samplers, *f.memLimit<<20, ceiling, time.Second, warn) })
	}
	if *f.memProfile != "" {
		sampling.Go(func() { profileHeapPeaks(samplers, *f.memProfile+".peak", 5*time.Second) })
	}
	if *f.cpuProfile != "" {
		cf, err := os.Create(*f.cpuProfile)
		if err != nil {
			return stop, err
		}
		stops = append(stops, func() { cf.Close() })
		if err := pprof.StartCPUProfile(cf); err != nil {
			return stop, err
		}
		stops = append(stops, pprof.StopCPUProfile)
	}
	if *f.mutexProfile != "" {
		mf, err := os.Create(*f.mutexProfile)
		if err != nil {
			return stop, err
		}
		stops = append(stops, func() { mf.Close() })
		runtime.SetMutexProfileFraction(5)
		stops = append(stops, func() {
			if err := pprof.Lookup("mutex").WriteTo(mf, 0); err != nil {
				fmt.Fprintf(stderr, "write mutex profile %s: %v\n", *f.mutexProfile, err)
			}
		})
	}
	return stop, nil
}

// crawlRun holds the command-line choices of one crawl.
type crawlRun struct {
	wacz  string // crawl --wacz FILE
	audit bool
	// heapArrays keeps the dedup index's and the verify cache's large
	// arrays on the Go heap instead of in memory-mapped files in the store
	// directory (the default, false: see contentdedup.Options.MapArrays).
	heapArrays bool
	verbose    bool
	quiet      bool // no progress output
	stderr     io.Writer
	// inspect, if set, is called with the open store after the crawl.
	inspect func(*storage.DB) error
	// serve, if set, serves the HTTP API (package api) on this listener
	// from the moment the crawl has rebuilt its state until it ends; token
	// is the bearer token it requires ("" = none).
	serve net.Listener
	token string
	// memProfile, if set, is the file a heap profile is written to when
	// the crawl ends, while its state (filter, deduper, frontier) is live.
	memProfile string
	// cluster, when its URL is set, makes the crawl one node of a cluster
	// crawl (package cluster).
	cluster cluster.Options
}

// crawlStore opens cfg's store, builds the deduper (crawler.NewOptions
// builds the URL filter), crawls, and closes the store. It returns the
// final counters (nil when the crawl could not start).
func crawlStore(ctx context.Context, cfg *configs.Config, r crawlRun) (st *crawler.Stats, err error) {
	logLevel := slog.LevelInfo
	if r.verbose {
		logLevel = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(r.stderr, &slog.HandlerOptions{Level: logLevel}))
	if cfg.Dedup.RecrawlWindow > 0 {
		log.Warn("dedup.recrawl_window: a URL seen longer ago is fetched again when rediscovered, but its stored page is not replaced (first copy wins); on resume every stored URL counts as just seen")
	}
	db, err := storage.Open(cfg.Store.Dir, crawler.StoreOptions(cfg.Store))
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	// The deduper is built here, not by crawler.NewOptions, because --serve
	// shares it with the API.
	dd, err := crawler.NewCrawlDeduper(cfg, !r.heapArrays)
	if err != nil {
		return nil, err
	}
	defer dd.Close()
	opts := crawler.Options{Store: db, Dedup: dd, MappedArrays: !r.heapArrays}
	if r.cluster.URL != "" {
		node, err := cluster.Open(ctx, r.cluster)
		if err != nil {
			return nil, err
		}
		defer node.Close()
		log.Info("cluster node", "redis", r.cluster.URL, "node", node.Name())
		if sm := cfg.Scope.Sitemaps; !sm.Off {
			log.Info("scope.sitemaps auto: sitemaps are not read in cluster mode (only links are followed)")
		}
		opts.Cluster = node
	}
	if opts, err = crawler.NewOptions(cfg, opts, r.audit); err != nil {
		return nil, err
	}
	if cfg.Store.WARCDir != "" {
		aw, err := archive.Open(crawler.ArchiveOptions(cfg, db))
		if err != nil {
			return nil, err
		}
		logRepair(log, cfg.Store.WARCDir, aw.Repaired())
		defer func() {
			if cerr := aw.Close(); cerr != nil && err == nil {
				err = cerr
			}
			if err == nil {
				err = crawlWACZ(ctx, r.wacz, cfg.Store.WARCDir, db, log)
			}
			ws := aw.Stats()
			log.Info("WARC written", "dir", cfg.Store.WARCDir, "files", ws.Files, "bytes", ws.Bytes,
				"responses", ws.Responses, "revisits", ws.Revisits, "metadata", ws.Metadata)
		}()
		opts.Archive = aw
	}

	live := false
	if f, ok := r.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		live = true
	}
	if !r.quiet {
		opts.Progress, opts.ProgressEvery = progressReporter(r.stderr, db, log, live)
	}
	if !live || r.verbose {
		opts.Logger = log
	}
	var c *crawler.Crawler // set before Run, which calls Started
	if r.serve != nil {
		started, wait := serveAPI(ctx, r, dd, db, log, &c)
		opts.Started = started
		defer func() {
			if serr := wait(); serr != nil && err == nil {
				err = fmt.Errorf("--serve: %w", serr)
			}
		}()
	}
	if c, err = crawler.New(opts); err != nil {
		return nil, err
	}
	stats, err := c.Run(ctx)
	if live && !r.quiet {
		fmt.Fprintln(r.stderr)
	}
	if r.inspect != nil && err == nil {
		err = r.inspect(db)
	}
	if r.memProfile != "" {
		if perr := writeHeapProfile(r.memProfile); perr != nil && err == nil {
			err = perr
		}
		runtime.KeepAlive(c)
		runtime.KeepAlive(dd)
	}
	return &stats, err
}

// serveAPI prepares crawl --serve: started (Options.Started) serves the
// HTTP API on r.serve from the crawl's deduper (already rebuilt by Run when
// it calls Started) and store, so one process owns the directory; wait
// stops serving and returns the server's error (nil if it never started).
// *c is the crawl, set before Run.
func serveAPI(ctx context.Context, r crawlRun, dd *contentdedup.Deduper, db *storage.DB, log *slog.Logger, c **crawler.Crawler) (started func(), wait func() error) {
	serveCtx, stopServe := context.WithCancel(ctx)
	serveDone := make(chan error, 1)
	serving := false // set by started, which Run calls before it returns
	started = func() {
		serving = true
		svc, serr := api.NewService(serveCtx, dd, db, &api.ServiceOptions{Restored: true, Logger: log})
		if serr != nil {
			serveDone <- serr
			return
		}
		recs, serr := seen.New(db, nil) // seen-records with seed 001's defaults
		if serr != nil {
			serveDone <- serr
			return
		}
		ho := api.HandlerOptions{Token: r.token, Logger: log, Seen: recs, Collectors: crawlMetrics(*c)}
		if r.cluster.URL != "" {
			// a document decided here, outside the cluster's document
			// log, would make this node's dedup index differ from the
			// other nodes'
			ho.NoDocID = "this crawl is a cluster node: documents are decided through the cluster's document log, not submitted here"
		}
		h := api.NewHandler(svc, db, ho)
		go func() {
			serveDone <- api.Serve(serveCtx, r.serve, h, api.ServerOptions{Logger: log, OnListen: func(a net.Addr) {
				log.Info("serving the HTTP API during the crawl", "url", "http://"+a.String()+"/")
			}})
		}()
	}
	wait = func() error {
		stopServe()
		if !serving {
			return nil
		}
		return <-serveDone
	}
	return started, wait
}

// progressReporter returns the crawl's progress callback and its period: a
// line rewritten in place on a terminal (live), else a log line every 10
// seconds.
func progressReporter(stderr io.Writer, db *storage.DB, log *slog.Logger, live bool) (func(crawler.Stats), time.Duration) {
	if live {
		return func(s crawler.Stats) { fmt.Fprintf(stderr, "\r\033[K%s%s", progressLine(s), lowDiskNote(db)) }, 0
	}
	return func(s crawler.Stats) {
		args := []any{"fetched", s.Fetched, "stored", s.Stored, "duplicates", s.Duplicates,
			"errors", s.Errors, "queued", s.Queued, "pages_per_s", fmt.Sprintf("%.0f", s.PagesPerSecond)}
		if sp, err := db.Space(); err == nil && sp.Low() {
			args = append(args, "disk_free", storage.FormatBytes(sp.Free), "stops_below", storage.FormatBytes(sp.Need()))
		}
		if s.FalsePositives != nil {
			args = append(args, "filter_false_positives", *s.FalsePositives)
		}
		if s.RefreshScheduled > 0 {
			args = append(args, "refreshed", s.Refreshed, "not_modified", s.NotModified, "changed", s.Changed,
				"refresh_due", s.RefreshDue, "behind_schedule", s.BehindSchedule)
		}
		if l := s.ClusterLease; l != nil {
			length, pending := clusterQueues(l)
			args = append(args, "cluster_partitions", fmt.Sprint(l.Held), "cluster_queue", length, "cluster_pending", pending,
				"cluster_leases_lost", l.LeasesLost, "cluster_renew_failures", l.RenewFailures)
		}
		log.Info("progress", args...)
	}, 10 * time.Second
}

// writeHeapProfile collects garbage and writes the heap profile to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	return f.Close()
}

// profileHeapPeaks writes a heap profile to path every time the live heap
// (as the last collection marked it) passes 110% of the highest seen so
// far, checking every interval until ctx is done.
func profileHeapPeaks(ctx context.Context, path string, every time.Duration) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var high uint64
	readMetricsEvery(ctx, every, sample, func() bool {
		if live := sample[0].Value.Uint64(); live > high+high/10 {
			high = live
			f, err := os.Create(path)
			if err != nil {
				return false
			}
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		return true
	})
}

// readMetricsEvery reads samples every interval and calls fn, until ctx is
// done or fn returns false; it stops as well when a sample is not a uint64
// (a metric this Go version does not have).
func readMetricsEvery(ctx context.Context, every time.Duration, samples []metrics.Sample, fn func() bool) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(samples)
		for _, s := range samples {
			if s.Value.Kind() != metrics.KindUint64 {
				return
			}
		}
		if !fn() {
			return
		}
	}
}

// crawlMetrics are the running crawl's counters that crawl --serve adds to
// /metrics: the URL filter's false positives and the store reads that
// confirm its "seen" answers (dedup.verify).
func crawlMetrics(c *crawler.Crawler) []prometheus.Collector {
	counter := func(name, help string, v func(crawler.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v(c.Stats())) })
	}
	gauge := func(name, help string, v func(crawler.Stats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return v(c.Stats()) })
	}
	return []prometheus.Collector{
		counter("bloomcrawl_crawl_filter_false_positives_total",
			`URLs the URL filter answered "seen" for that were new, crawled anyway (dedup.verify or --audit; 0 when neither counts them).`,
			func(s crawler.Stats) uint64 {
				if s.FalsePositives == nil {
					return 0
				}
				return *s.FalsePositives
			}),
		counter("bloomcrawl_crawl_filter_store_reads_total",
			`Store read batches made to confirm the URL filter's "seen" answers (at most one per page).`,
			func(s crawler.Stats) uint64 { return s.FilterStoreReads }),
		counter("bloomcrawl_crawl_filter_store_keys_total",
			`URLs looked up in the store to confirm the URL filter's "seen" answers.`,
			func(s crawler.Stats) uint64 { return s.FilterStoreKeys }),
		counter("bloomcrawl_crawl_pages_fetched_total", "URLs requested that got an HTTP response.",
			func(s crawler.Stats) uint64 { return uint64(s.Fetched) }),
		counter("bloomcrawl_crawl_refreshed_total", "Scheduled refreshes fetched (recrawl; any response).",
			func(s crawler.Stats) uint64 { return uint64(s.Refreshed) }),
		counter("bloomcrawl_crawl_not_modified_total", "Refreshes answered 304 Not Modified (conditional GET): nothing rewritten.",
			func(s crawler.Stats) uint64 { return uint64(s.NotModified) }),
		counter("bloomcrawl_crawl_changed_total", "Refreshes whose title or text changed: the stored page replaced by the new text.",
			func(s crawler.Stats) uint64 { return uint64(s.Changed) }),
		counter("bloomcrawl_crawl_new_versions_total", "Changed refreshes that were no near-duplicate of the stored text: new versions (the old one kept up to recrawl.keep_versions).",
			func(s crawler.Stats) uint64 { return uint64(s.NewVersions) }),
		counter("bloomcrawl_crawl_behind_schedule_total", "Refreshes fetched more than one interval after they were due.",
			func(s crawler.Stats) uint64 { return uint64(s.BehindSchedule) }),
		gauge("bloomcrawl_crawl_discovery_delay_median_seconds", "Median delay from a URL's discovery (its link queued in this run) to its fetch.",
			func(s crawler.Stats) float64 { return s.DiscoveryDelayMedian }),
		gauge("bloomcrawl_crawl_cluster_partitions_held", "Cluster mode: partitions this node holds a lease on (only their hosts are fetched here).",
			func(s crawler.Stats) float64 { return float64(len(s.ClusterPartitions)) }),
		counter("bloomcrawl_crawl_cluster_lease_renew_failures_total", "Cluster mode: lease rounds that failed (Redis unreachable or an error); the node stops after a lease TTL of them in a row.",
			func(s crawler.Stats) uint64 {
				if s.ClusterLease == nil {
					return 0
				}
				return uint64(s.ClusterLease.RenewFailures)
			}),
		counter("bloomcrawl_crawl_cluster_leases_lost_total", "Cluster mode: leases found expired or owned by another node when this node came to renew them.",
			func(s crawler.Stats) uint64 {
				if s.ClusterLease == nil {
					return 0
				}
				return uint64(s.ClusterLease.LeasesLost)
			}),
		newClusterQueueCollector(c),
		gauge("bloomcrawl_crawl_discovery_delay_p99_seconds", "99th percentile of the delay from a URL's discovery to its fetch.",
			func(s crawler.Stats) float64 { return s.DiscoveryDelayP99 }),
	}
}

func progressLine(s crawler.Stats) string {
	line := fmt.Sprintf("%6.0fs  fetched %d  stored %d  duplicates %d  errors %d  queued %d  %.0f pages/s",
		s.Seconds, s.Fetched, s.Stored, s.Duplicates, s.Errors, s.Queued, s.PagesPerSecond)
	if s.FalsePositives != nil {
		line += fmt.Sprintf("  filter FPs %d", *s.FalsePositives)
	}
	if s.RefreshScheduled > 0 {
		line += fmt.Sprintf("  refreshed %d  due %d  behind %d", s.Refreshed, s.RefreshDue, s.BehindSchedule)
	}
	if l := s.ClusterLease; l != nil {
		length, pending := clusterQueues(l)
		line += fmt.Sprintf("  partitions %v  queue %d (%d pending)", l.Held, length, pending)
		if l.LeasesLost > 0 || l.RenewFailures > 0 {
			line += fmt.Sprintf("  leases lost %d  renew failures %d", l.LeasesLost, l.RenewFailures)
		}
	}
	return line
}

// clusterQueues sums the queue lengths and pending entries of the
// partitions a cluster node holds.
func clusterQueues(l *cluster.LeaseState) (length, pending int64) {
	for _, q := range l.Queues {
		length += q.Length
		pending += q.Pending
	}
	return length, pending
}

// clusterQueueCollector exports, in cluster mode, the queue length and
// pending entries of each partition the node holds, labelled by
// partition.
type clusterQueueCollector struct {
	c               *crawler.Crawler
	length, pending *prometheus.Desc
}

func newClusterQueueCollector(c *crawler.Crawler) *clusterQueueCollector {
	return &clusterQueueCollector{c: c,
		length: prometheus.NewDesc("bloomcrawl_crawl_cluster_queue_length",
			"Cluster mode: entries in the stream of each partition this node holds (waiting or handed out, not yet acknowledged), read every lease round.",
			[]string{"partition"}, nil),
		pending: prometheus.NewDesc("bloomcrawl_crawl_cluster_queue_pending",
			"Cluster mode: entries of each partition this node holds that were handed out and not yet acknowledged.",
			[]string{"partition"}, nil)}
}

func (q *clusterQueueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- q.length; ch <- q.pending }

func (q *clusterQueueCollector) Collect(ch chan<- prometheus.Metric) {
	l := q.c.Stats().ClusterLease
	if l == nil {
		return
	}
	for _, p := range l.Queues {
		label := strconv.Itoa(p.Partition)
		ch <- prometheus.MustNewConstMetric(q.length, prometheus.GaugeValue, float64(p.Length), label)
		ch <- prometheus.MustNewConstMetric(q.pending, prometheus.GaugeValue, float64(p.Pending), label)
	}
}

// lowDiskNote is what the live progress line adds when the store's disk
// gets low (under twice the reserve): "" otherwise.
func lowDiskNote(db *storage.DB) string {
	sp, err := db.Space()
	if err != nil || !sp.Low() {
		return ""
	}
	return fmt.Sprintf("  disk %s free (stops below %s)", storage.FormatBytes(sp.Free), storage.FormatBytes(sp.Need()))
}

func printSummary(w io.Writer, s *crawler.Stats, dir string) {
	fmt.Fprintf(w, "crawl finished in %.1fs (%.0f pages/s)\n", s.Seconds, s.PagesPerSecond)
	fmt.Fprintf(w, "  fetched      %d\n", s.Fetched)
	fmt.Fprintf(w, "  stored       %d new documents\n", s.Stored)
	fmt.Fprintf(w, "  duplicates   %d (URLs mapped to a stored document)\n", s.Duplicates)
	if s.Retries > 0 {
		fmt.Fprintf(w, "  retries      %d\n", s.Retries)
	}
	if s.Redirected > 0 {
		fmt.Fprintf(w, "  redirected   %d\n", s.Redirected)
	}
	if s.NonHTML > 0 {
		fmt.Fprintf(w, "  non-HTML     %d (recorded, not parsed)\n", s.NonHTML)
	}
	if s.Robots > 0 {
		fmt.Fprintf(w, "  robots.txt   %d disallowed\n", s.Robots)
	}
	if s.NoIndex > 0 {
		fmt.Fprintf(w, "  noindex      %d (fetched, links followed, not stored)\n", s.NoIndex)
	}
	if s.Sitemaps > 0 {
		fmt.Fprintf(w, "  sitemaps     %d read, %d URLs listed\n", s.Sitemaps, s.SitemapURLs)
	}
	fmt.Fprintf(w, "  errors       %d\n", s.Errors)
	fmt.Fprintf(w, "  queued left  %d\n", s.Queued)
	if s.ClusterPartitions != nil {
		fmt.Fprintf(w, "  partitions   %v (cluster: held by this node at the end)\n", s.ClusterPartitions)
	}
	if s.FalsePositives != nil {
		fmt.Fprintf(w, "  filter false positives  %d (URLs the filter called seen that were new: crawled anyway)\n", *s.FalsePositives)
	}
	if s.FilterStoreReads > 0 || s.FilterMemoryHits > 0 {
		fmt.Fprintf(w, "  filter store reads      %d (%d URLs looked up to confirm the filter's \"seen\"; %d confirmed in memory)\n", s.FilterStoreReads, s.FilterStoreKeys, s.FilterMemoryHits)
	}
	if s.Refreshed > 0 || s.RefreshScheduled > 0 {
		fmt.Fprintf(w, "  refreshed    %d (%d not modified, %d changed of which %d new versions, %d behind schedule; %d URLs on the refresh schedule)\n",
			s.Refreshed, s.NotModified, s.Changed, s.NewVersions, s.BehindSchedule, s.RefreshScheduled)
		if s.LastModDue > 0 {
			fmt.Fprintf(w, "               %d queued because a sitemap's lastmod was newer than their last fetch\n", s.LastModDue)
		}
	}
	if s.DiscoveryDelayMedian > 0 {
		fmt.Fprintf(w, "  discovery to fetch  median %.3fs, p99 %.3fs\n", s.DiscoveryDelayMedian, s.DiscoveryDelayP99)
	}
	if s.ResumedURLs > 0 || s.ResumedQueue > 0 {
		fmt.Fprintf(w, "  resumed from %d URLs already in the store and %d queued\n", s.ResumedURLs, s.ResumedQueue)
	}
	if dir != "" {
		fmt.Fprintf(w, "store: %s\n", dir)
	}
}

// followMemLimit sets the Go heap's soft limit to base bytes, and raises it
// while ctx lasts when the live heap stays above 60% of it over ten garbage
// collections in a row (the dedup index and URL filter grow with the crawl;
// one huge page's DOM does not last): a limit below the lasting live heap
// would make the GC run continuously instead of bounding memory. The live
// heap is what the last collection marked, so a sample is taken only after
// a new collection. The raised limit is 1.67 times the lasting heap: a
// fixed headroom (the lasting heap plus 40% of base) measured 16% more CPU
// per page at 500k synthetic pages for 200 MB less RssAnon (bench
// synthetic), because Badger's table builders, pooled in the Go heap, come
// and go by tens of MB during compactions.
//
// The limit never goes above 3/4 of ceiling (memCeiling: the cgroup limit
// or the RAM, 0 = unknown; the rest is for Badger's mapped files, caches
// and the runtime). When the lasting heap needs more, the limit stays there:
// the GC then runs more often and the crawl slows down instead of being
// OOM-killed without a word, and warn is called to say so (once, and again
// each time the lasting heap has grown by another tenth).
func followMemLimit(ctx context.Context, base, ceiling int64, every time.Duration, warn func(msg string, args ...any)) {
	maxLimit := int64(math.MaxInt64)
	if ceiling > 0 {
		maxLimit = ceiling / 4 * 3
	}
	limit := min(base, maxLimit)
	debug.SetMemoryLimit(limit)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	var recent [10]int64 // live heap after the last collections, a ring
	var n, lastCycle uint64
	var warned int64 // lasting heap at the last warning
	readMetricsEvery(ctx, every, sample, func() bool {
		cycle := sample[1].Value.Uint64()
		if cycle == lastCycle {
			return true // no collection since the last sample
		}
		lastCycle = cycle
		recent[n%uint64(len(recent))] = int64(sample[0].Value.Uint64())
		if n++; n < uint64(len(recent)) {
			return true
		}
		lasting := slices.Min(recent[:])
		if lasting <= limit*6/10 {
			return true
		}
		want := lasting * 10 / 6
		if want > maxLimit {
			want = maxLimit
			if warn != nil && lasting > warned+warned/10 {
				warned = lasting
				warn("memory: the crawl's lasting state is near the memory available; the garbage collector runs more often and the crawl slows down (lower politeness.concurrency or dedup.capacity, or give it more memory)",
					"live_heap", storage.FormatBytes(lasting), "heap_limit", storage.FormatBytes(maxLimit), "ceiling", storage.FormatBytes(ceiling))
			}
		}
		if want != limit {
			limit = want
			debug.SetMemoryLimit(limit)
		}
		return true
	})
}
