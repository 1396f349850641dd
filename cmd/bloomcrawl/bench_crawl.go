package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

func init() {
	registerBench(command{
		name:    "crawl",
		summary: "crawl throughput and memory vs wget and bare Colly on corpora served by nginx",
		run:     runBenchCrawl,
	})
}

// crawlBenchRow is one tool's run on one corpus.
type crawlBenchRow struct {
	Corpus        string  `json:"corpus"`
	Tool          string  `json:"tool"`
	Distinct      int     `json:"distinct_urls"` // distinct URLs requested (nginx log)
	Requests      int     `json:"requests"`
	Seconds       float64 `json:"seconds"`
	DistinctPerS  float64 `json:"distinct_per_second"`
	Pages         int     `json:"distinct_pages"` // distinct HTML pages requested (.html, .htm, /): images and stylesheets left out
	PagesPerS     float64 `json:"pages_per_second"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	Stopped       string  `json:"stopped,omitempty"` // why a capped run was stopped
	ReachableHTML int     `json:"reachable_html,omitempty"`
	Missing       int     `json:"missing,omitempty"` // reachable HTML pages (per wget) neither stored nor mapped
	Stored        int64   `json:"stored,omitempty"`
	Duplicates    int64   `json:"duplicates,omitempty"`
}

func runBenchCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench crawl", "bench crawl [--corpus DIR ...] [--port N] [--tools bloomcrawl,wget,colly] [--json]", stderr)
	var corpora stringList
	fs.Var(&corpora, "corpus", "corpus directory to serve with nginx (repeatable; default /tmp/corpora/python311 and /tmp/corpora/rust)")
	port := fs.Int("port", 18085, "loopback port for nginx")
	serve := fs.String("serve", "/work/shared/lab/serve-corpus.sh", "the lab's serve-corpus.sh")
	tools := fs.String("tools", "bloomcrawl,wget,colly", "tools to run, in order")
	seedPath := fs.String("seed-path", "/", "path of the seed on each corpus")
	concurrency := fs.Int("concurrency", 16, "bloomcrawl's concurrency (and per-host parallelism) and bare Colly's parallelism")
	collyRSS := fs.Int("colly-max-rss-mb", 1024, "stop bare Colly when its RSS passes this")
	collyTime := fs.Duration("colly-timeout", 2*time.Minute, "stop bare Colly after this long")
	limit := fs.Duration("tool-timeout", 10*time.Minute, "stop any tool after this long")
	lock := fs.String("lock", "/tmp/bloomcrawl-bench.lock", "flock this file for the whole run (\"\" = no lock)")
	asJSON := fs.Bool("json", false, "print one JSON object per run")
	// Hidden: the bare Colly crawler, run as a child so its RSS is its own.
	bare := fs.String("bare-colly", "", "(internal) run the bare Colly crawler on this seed URL")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *bare != "" {
		return bareColly(ctx, *bare, *concurrency, int64(*collyRSS)<<20, *collyTime, stdout)
	}
	if len(corpora) == 0 {
		corpora = stringList{"/tmp/corpora/python311", "/tmp/corpora/rust"}
	}
	if *lock != "" {
		f, err := os.OpenFile(*lock, os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			return fmt.Errorf("bench crawl: lock: %w", err)
		}
		defer f.Close()
		fmt.Fprintf(stderr, "waiting for %s ...\n", *lock)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			return fmt.Errorf("bench crawl: lock %s: %w", *lock, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		return errors.New("bench crawl: /usr/bin/time is missing (apt-get install -y time)")
	}
	var rows []crawlBenchRow
	for _, dir := range corpora {
		rs, err := benchCorpus(ctx, benchCorpusRun{dir: dir, port: *port, serve: *serve, tools: strings.Split(*tools, ","),
			seedPath: *seedPath, concurrency: *concurrency, collyRSS: *collyRSS, collyTime: *collyTime, limit: *limit, self: self, timeBin: timeBin, log: stderr})
		rows = append(rows, rs...)
		if err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintf(stdout, "%-10s %-11s %9s %9s %8s %11s %7s %8s %9s  %s\n", "corpus", "tool", "distinct", "requests", "seconds", "distinct/s", "pages", "pages/s", "peak RSS", "notes")
	for _, r := range rows {
		note := r.Stopped
		if r.Tool == "bloomcrawl" {
			note = fmt.Sprintf("stored %d, duplicates %d; reachable HTML pages (per wget) neither stored nor mapped: %d of %d",
				r.Stored, r.Duplicates, r.Missing, r.ReachableHTML)
		}
		fmt.Fprintf(stdout, "%-10s %-11s %9d %9d %8.1f %11.0f %7d %8.0f %6.0f MB  %s\n", r.Corpus, r.Tool, r.Distinct, r.Requests, r.Seconds, r.DistinctPerS, r.Pages, r.PagesPerS, r.PeakRSSMB, note)
	}
	return nil
}

type benchCorpusRun struct {
	dir, serve, seedPath, self, timeBin string
	port, concurrency, collyRSS         int
	tools                               []string
	limit, collyTime                    time.Duration
	log                                 io.Writer
}

func benchCorpus(ctx context.Context, b benchCorpusRun) ([]crawlBenchRow, error) {
	name := filepath.Base(b.dir)
	p := strconv.Itoa(b.port)
	if out, err := exec.CommandContext(ctx, b.serve, b.dir, p).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bench crawl: serve %s: %v: %s", b.dir, err, out)
	}
	defer exec.Command(b.serve, "stop", p).Run()
	base := "http://127.0.0.1:" + p
	seed := base + b.seedPath
	logPath := fmt.Sprintf("/tmp/serve-corpus/127.0.0.1_%d/access.log", b.port)
	work, err := os.MkdirTemp("", "bloomcrawl-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	var rows []crawlBenchRow
	var wgetLog []accessLine
	var bcStore string
	for _, tool := range b.tools {
		if err := exec.CommandContext(ctx, b.serve, "reset", p).Run(); err != nil {
			return rows, fmt.Errorf("bench crawl: reset log: %w", err)
		}
		row := crawlBenchRow{Corpus: name, Tool: tool}
		var argv []string
		switch tool {
		case "bloomcrawl":
			bcStore = filepath.Join(work, "bloomcrawl.db")
			cfg := configs.Default()
			cfg.Seeds = []string{seed}
			cfg.Store.Dir = bcStore
			cfg.Scope.MaxDepth = 100_000
			cfg.Politeness.ObeyRobots = false
			cfg.Politeness.Concurrency = b.concurrency
			cfg.Politeness.PerHostParallelism = b.concurrency
			cfg.Fetch.Timeout = configs.Duration(10 * time.Second)
			y, err := cfg.Marshal()
			if err != nil {
				return rows, err
			}
			cfgPath := filepath.Join(work, "crawl.yaml")
			if err := os.WriteFile(cfgPath, y, 0o644); err != nil {
				return rows, err
			}
			argv = []string{b.self, "crawl", cfgPath, "--json"}
		case "wget":
			argv = []string{"wget", "-r", "-l", "inf", "--no-parent", "-e", "robots=off", "--delete-after", "-q", "-P", filepath.Join(work, "wget"), seed}
		case "colly":
			argv = []string{b.self, "bench", "crawl", "--bare-colly", seed, "--concurrency", strconv.Itoa(b.concurrency),
				"--colly-max-rss-mb", strconv.Itoa(b.collyRSS), "--colly-timeout", b.collyTime.String()}
		default:
			return rows, usagef("unknown tool %q (bloomcrawl, wget, colly)", tool)
		}
		fmt.Fprintf(b.log, "%s: %s ...\n", name, tool)
		timeOut := filepath.Join(work, "time.txt")
		tctx, cancel := context.WithTimeout(ctx, b.limit+30*time.Second)
		cmd := exec.CommandContext(tctx, b.timeBin, append([]string{"-v", "-o", timeOut}, argv...)...)
		var out strings.Builder
		cmd.Stdout = &out
		cmd.Stderr = b.log
		start := time.Now()
		runErr := cmd.Run()
		row.Seconds = time.Since(start).Seconds()
		cancel()
		if ctx.Err() != nil {
			return rows, ctx.Err()
		}
		if runErr != nil {
			// wget exits 8 when some link answered an error; a capped
			// Colly exits 3. Both still measured.
			row.Stopped = fmt.Sprintf("exit: %v", runErr)
		}
		if tool == "colly" && strings.Contains(out.String(), "stopped:") {
			row.Stopped = strings.TrimSpace(out.String())
		}
		row.PeakRSSMB = peakRSS(timeOut)
		if err := exec.Command(b.serve, "stats", p).Run(); err != nil { // waits for nginx to flush its log
			return rows, fmt.Errorf("bench crawl: stats: %w", err)
		}
		lines, err := readAccessLog(logPath)
		if err != nil {
			return rows, err
		}
		distinct := map[string]bool{}
		for _, l := range lines {
			if !distinct[l.uri] && isPagePath(l.uri) {
				row.Pages++
			}
			distinct[l.uri] = true
		}
		row.Requests, row.Distinct = len(lines), len(distinct)
		if row.Seconds > 0 {
			row.DistinctPerS = float64(row.Distinct) / row.Seconds
			row.PagesPerS = float64(row.Pages) / row.Seconds
		}
		if tool == "wget" {
			wgetLog = lines
		}
		if tool == "bloomcrawl" {
			var st struct{ Stored, Duplicates int64 }
			json.Unmarshal([]byte(out.String()), &st)
			row.Stored, row.Duplicates = st.Stored, st.Duplicates
		}
		rows = append(rows, row)
	}
	if bcStore != "" && wgetLog != nil {
		for i := range rows {
			if rows[i].Tool == "bloomcrawl" {
				reach, missing, err := completeness(bcStore, base, wgetLog)
				if err != nil {
					return rows, err
				}
				rows[i].ReachableHTML, rows[i].Missing = reach, len(missing)
				for j, m := range missing {
					if j == 10 {
						fmt.Fprintf(b.log, "  ... and %d more\n", len(missing)-10)
						break
					}
					fmt.Fprintf(b.log, "  missing: %s\n", m)
				}
			}
		}
	}
	return rows, nil
}

// completeness checks that every HTML page wget fetched with status 200 is,
// canonicalized, a URL record of the bloomcrawl store that maps to a stored
// document.
func completeness(dir, base string, wget []accessLine) (reachable int, missing []string, err error) {
	db, err := storage.Open(dir, &storage.Options{ReadOnly: true})
	if err != nil {
		return 0, nil, err
	}
	defer db.Close()
	have := map[string]bool{}
	err = db.ForEachURL(context.Background(), func(r storage.URLRecord) error {
		if r.DocID != 0 {
			have[r.URL] = true
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	seen := map[string]bool{}
	for _, l := range wget {
		if l.status != 200 || !isPagePath(l.uri) {
			continue
		}
		u, err := urlfilter.Canonicalize(nil, base+l.uri)
		if err != nil || seen[u.String()] {
			continue
		}
		seen[u.String()] = true
		reachable++
		if !have[u.String()] {
			missing = append(missing, u.String())
		}
	}
	sort.Strings(missing)
	return reachable, missing, nil
}

type accessLine struct {
	uri    string
	status int
}

// readAccessLog reads the lab nginx log: "METHOD URI STATUS BYTES UNIXTIME".
func readAccessLog(path string) ([]accessLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bench crawl: access log: %w", err)
	}
	defer f.Close()
	var out []accessLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		st, _ := strconv.Atoi(fields[2])
		out = append(out, accessLine{uri: fields[1], status: st})
	}
	return out, sc.Err()
}

var maxRSSRe = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)

func peakRSS(timeOut string) float64 {
	b, err := os.ReadFile(timeOut)
	if err != nil {
		return 0
	}
	m := maxRSSRe.FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseFloat(string(m[1]), 64)
	return kb / 1024
}

// bareColly is the textbook Colly crawler the benchmark compares against:
// Async, colly's in-memory visited set, no storage, links followed as
// written (fragments included). It stops itself past maxRSS or limit so it
// cannot eat the machine, and says so on stdout.
func bareColly(ctx context.Context, seed string, parallelism int, maxRSS int64, limit time.Duration, stdout io.Writer) error {
	u, err := url.Parse(seed)
	if err != nil {
		return usagef("--bare-colly %q: %v", seed, err)
	}
	c := colly.NewCollector(colly.Async(true), colly.IgnoreRobotsTxt(), colly.AllowedDomains(u.Hostname()))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: parallelism}); err != nil {
		return err
	}
	var pages atomic.Int64
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	c.OnResponse(func(*colly.Response) { pages.Add(1) })
	var once sync.Once
	stop := func(why string) {
		once.Do(func() {
			fmt.Fprintf(stdout, "stopped: %s after %d responses\n", why, pages.Load())
			os.Exit(3)
		})
	}
	go func() {
		deadline := time.Now().Add(limit)
		for range time.Tick(100 * time.Millisecond) {
			if rss := selfRSS(); rss > maxRSS {
				stop(fmt.Sprintf("RSS %d MB over the cap", rss>>20))
			}
			if time.Now().After(deadline) {
				stop("time limit " + limit.String())
			}
			if ctx.Err() != nil {
				stop("interrupted")
			}
		}
	}()
	if err := c.Visit(seed); err != nil {
		return err
	}
	c.Wait()
	fmt.Fprintf(stdout, "done: %d responses\n", pages.Load())
	runtime.KeepAlive(c)
	return nil
}

// selfRSS reads this process's resident set size from /proc.
func selfRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// isPagePath reports whether a request URI names an HTML page of the lab
// corpora (they are static files: .html, .htm, or a directory index).
func isPagePath(uri string) bool {
	path, _, _ := strings.Cut(uri, "?")
	return strings.HasSuffix(path, ".html") || strings.HasSuffix(path, ".htm") || strings.HasSuffix(path, "/")
}
