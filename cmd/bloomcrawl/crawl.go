package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"time"

	"golang.org/x/term"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/console"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/internal/memlimit"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		Name:    "crawl",
		Summary: "crawl from a YAML config or --seed URLs into a store (resumes an interrupted crawl)",
		Run:     runCrawlCmd,
	})
}

// crawlFlags are the crawl command's flags.
type crawlFlags struct {
	seeds        cli.StringList
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
	redisWait    *time.Duration
	memLimit     *int64
	hostCounters *int
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
	f.serveAddr = fs.String("serve", "", "also serve the HTTP API (as 'bloomcrawl serve') and the web console (http://ADDR/) on this address while the crawl runs")
	f.token = fs.String("token", "", "with --serve: bearer token required on every request except /healthz (default $BLOOMCRAWL_TOKEN); needed for a non-loopback address")
	f.cpuProfile = fs.String("cpuprofile", "", "write a CPU profile of the crawl to this file")
	f.mutexProfile = fs.String("mutexprofile", "", "write a profile of the crawl's lock contention (1 in 5 contended sync.Mutex waits sampled) to this file when the crawl ends")
	f.memProfile = fs.String("memprofile", "", "write a heap profile to this file when the crawl ends (after a GC, with the crawl's state still live), and to FILE.peak whenever the live heap reaches a new high (10% above the last)")
	f.clusterURL = fs.String("cluster", "", "crawl as one node of a cluster coordinated through Redis at redis://HOST:PORT/DB, or a Redis Cluster at redis+cluster://HOST:PORT[?addr=HOST:PORT...] (see docs/cluster.md)")
	f.node = fs.String("node", "", "with --cluster: this node's name (default HOSTNAME-PID); a node restarted under its name takes back its pending entries")
	f.partitions = fs.Int("partitions", 16, "with --cluster: partitions the hosts are spread over (the same on every node, checked); a Redis Cluster spreads at most this many partitions' keys over its shards")
	f.redisWait = fs.Duration("redis-wait", 30*time.Second, "with --cluster: how long a node waits for an unreachable Redis (a restart) before it stops")
	f.leaseTTL = fs.Duration("lease-ttl", 10*time.Second, "with --cluster: how long a partition lease lives unrenewed; a dead node's partitions and pages in flight are taken over after about this long")
	f.hostCounters = fs.Int("host-counters", crawler.DefaultHostCounters, "most hosts whose fetch counters the web console's hosts view keeps one by one; the others are summed as \"other hosts\"")
	f.memLimit = fs.Int64("mem-limit-mb", 300, "soft limit on the Go heap in MiB (runtime/debug.SetMemoryLimit), raised as the crawl's lasting state outgrows it; 0 = none; the GOMEMLIMIT environment variable wins")
	return fs, f
}

func runCrawlCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, f := newCrawlFlags(stderr)
	pos, err := cli.ParseInterspersed(fs, args) // flags may come before and after the config file name
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("unexpected argument %q (one config file at most)", pos[1])
	}
	cfg, err := crawlConfig(append(pos, "")[0], f) // "" without a config file
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
	// Without a limit the GC lets the heap grow to twice the live heap, and
	// a multi-MB page parsed into a DOM makes that peak high.
	prof := memlimit.Options{Limit: *f.memLimit << 20, Logger: slog.New(slog.NewTextHandler(stderr, nil)), CPUProfile: *f.cpuProfile, MutexProfile: *f.mutexProfile}
	if *f.memProfile != "" {
		prof.HeapPeaks = *f.memProfile + ".peak"
	}
	stopProfiling, err := memlimit.Start(ctx, prof)
	defer func() {
		if err := stopProfiling(); err != nil {
			fmt.Fprintln(stderr, err)
		}
	}()
	if err != nil {
		return err
	}
	if *f.partitions < 1 || *f.partitions > cluster.MaxPartitions {
		return usagef("--partitions %d: want 1 to %d", *f.partitions, cluster.MaxPartitions)
	}
	if *f.hostCounters < 1 {
		return usagef("--host-counters %d: want 1 or more", *f.hostCounters)
	}
	if *f.clusterURL == "" && (*f.node != "") {
		return usagef("--node needs --cluster")
	}
	if *f.clusterURL != "" && *f.audit {
		return usagef("%v", crawler.ErrClusterAudit)
	}
	if *f.clusterURL != "" {
		if err := crawler.CheckCluster(cfg); err != nil {
			return usagef("--cluster: %v", err)
		}
	}
	st, err := crawlStore(ctx, cfg, crawlRun{verbose: *f.verbose, stderr: stderr, serve: ln, token: *f.token, memProfile: *f.memProfile,
		OpenOptions: crawler.OpenOptions{WACZ: *f.wacz, Audit: *f.audit, HeapArrays: !*f.mappedArrays, HostCounters: *f.hostCounters,
			Cluster: cluster.Options{URL: *f.clusterURL, Node: *f.node, LeaseTTL: *f.leaseTTL, Partitions: *f.partitions, RedisWait: *f.redisWait}}})
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "interrupted: run the same command again to resume")
	}
	if st != nil {
		if *f.asJSON {
			if jerr := json.NewEncoder(stdout).Encode(st); jerr != nil && err == nil {
				err = jerr
			}
		} else {
			st.WriteSummary(stdout, cfg.Store.Dir)
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
	if _, err := os.Lstat(*f.wacz); *f.wacz != "" && err == nil {
		return nil, usagef("--wacz %s: the file exists (a WACZ is never overwritten): give a new name", *f.wacz)
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

// crawlRun holds the command-line choices of one crawl: those of its
// components (crawler.OpenOptions; the logger is made here), and these.
type crawlRun struct {
	crawler.OpenOptions
	verbose bool
	quiet   bool // no progress output
	stderr  io.Writer
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
}

// crawlStore opens the components of a crawl of cfg
// (crawler.OpenComponents), crawls, and closes them. It returns the final
// counters (nil when the crawl could not start).
func crawlStore(ctx context.Context, cfg *configs.Config, r crawlRun) (st *crawler.Stats, err error) {
	logLevel := slog.LevelInfo
	if r.verbose {
		logLevel = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(r.stderr, &slog.HandlerOptions{Level: logLevel}))
	r.Logger = log
	parts, err := crawler.OpenComponents(ctx, cfg, r.OpenOptions)
	if err != nil {
		return nil, err
	}
	defer func() { err = parts.Close(ctx, err) }()
	opts, db := parts.Options, parts.Store
	f, ok := r.stderr.(*os.File)
	live := ok && term.IsTerminal(int(f.Fd()))
	if !r.quiet {
		opts.Progress, opts.ProgressEvery = crawler.NewProgress(r.stderr, db, log, live)
	}
	if !live || r.verbose {
		opts.Logger = log
	}
	var c *crawler.Crawler // set before Run, which calls Started
	if r.serve != nil {
		so := console.ServeOptions{Listener: r.serve, Token: r.token, Logger: log, Dedup: parts.Dedup, Store: db,
			WARCDir: cfg.Store.WARCDir, ClusterURL: r.Cluster.URL, ClusterPrefix: r.Cluster.Prefix}
		if parts.Node != nil {
			so.Seen = parts.Node.SeenStore() // the cluster's seen-records, in Redis
		}
		start, wait := console.ServeCrawl(ctx, so)
		opts.Started = func() { start(c) }
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
		if perr := memlimit.WriteHeapProfile(r.memProfile); perr != nil && err == nil {
			err = fmt.Errorf("--memprofile: %w", perr)
		}
		runtime.KeepAlive(c)
		runtime.KeepAlive(parts)
	}
	return &stats, err
}
