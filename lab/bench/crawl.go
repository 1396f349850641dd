package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// CrawlOptions says what Crawl runs, on what.
type CrawlOptions struct {
	Corpora  []string      // directories of static HTML pages, each served in turn
	Tools    []Tool        // the crawlers to run on each corpus, in order
	Nginx    string        // serve with this nginx binary instead of Go's file server ("" = Go)
	Port     int           // loopback port to serve on; 0 = any free port
	SeedPath string        // path of the seed on each corpus; "" = "/"
	Limit    time.Duration // stop a tool after this long; 0 = 10 minutes
	Lock     string        // flock this file for the whole run; "" = none
	Log      io.Writer     // progress lines and the tools' stderr; nil = none
}

// Tool is one crawler Crawl runs, as a child process so that its peak RSS
// is its own.
type Tool struct {
	Name string
	// Cmd returns the command that crawls everything reachable from seed,
	// with dir (empty, removed afterwards) for its files.
	Cmd func(ctx context.Context, seed, dir string) (*exec.Cmd, error)
	// Result, if set, reads what the tool printed on stdout into row.
	Result func(stdout string, row *CrawlRow)
	// Store, if set, returns the bloomcrawl store the tool wrote under dir:
	// Crawl then checks it against the pages wget reached.
	Store func(dir string) string
}

// CrawlRow is one tool's run on one corpus. Requests, distinct URLs and
// pages are counted by the server, not by the tool.
type CrawlRow struct {
	Corpus        string  `json:"corpus"`
	Tool          string  `json:"tool"`
	Distinct      int     `json:"distinct_urls"` // distinct URLs requested (server log)
	Requests      int     `json:"requests"`
	Seconds       float64 `json:"seconds"`
	DistinctPerS  float64 `json:"distinct_per_second"`
	Pages         int     `json:"distinct_pages"` // distinct HTML pages requested (.html, .htm, /): images and stylesheets left out
	PagesPerS     float64 `json:"pages_per_second"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	Stopped       string  `json:"stopped,omitempty"` // why a run ended early or failed
	ReachableHTML int     `json:"reachable_html,omitempty"`
	Missing       int     `json:"missing,omitempty"` // reachable HTML pages (per wget) neither stored nor mapped
	Stored        int64   `json:"stored,omitempty"`
	Duplicates    int64   `json:"duplicates,omitempty"`
}

// BloomcrawlTool crawls with 'bloomcrawl crawl CONFIG --json' run by
// command (for example the running binary): robots.txt ignored, unbounded
// depth, concurrency and per-host parallelism as given, store under dir.
func BloomcrawlTool(command func(ctx context.Context, args ...string) *exec.Cmd, concurrency int) Tool {
	return Tool{
		Name: "bloomcrawl",
		Cmd: func(ctx context.Context, seed, dir string) (*exec.Cmd, error) {
			cfg := configs.Default()
			cfg.Seeds = []string{seed}
			cfg.Store.Dir = filepath.Join(dir, "bloomcrawl.db")
			cfg.Scope.MaxDepth = 100_000
			cfg.Politeness.ObeyRobots = false
			cfg.Politeness.Concurrency = concurrency
			cfg.Politeness.PerHostParallelism = concurrency
			cfg.Fetch.Timeout = configs.Duration(10 * time.Second)
			y, err := cfg.Marshal()
			if err != nil {
				return nil, err
			}
			cfgPath := filepath.Join(dir, "crawl.yaml")
			if err := os.WriteFile(cfgPath, y, 0o644); err != nil {
				return nil, err
			}
			return command(ctx, "crawl", cfgPath, "--json"), nil
		},
		Result: func(stdout string, row *CrawlRow) {
			var st struct{ Stored, Duplicates int64 }
			if json.Unmarshal([]byte(stdout), &st) == nil {
				row.Stored, row.Duplicates = st.Stored, st.Duplicates
			}
		},
		Store: func(dir string) string { return filepath.Join(dir, "bloomcrawl.db") },
	}
}

// WgetTool crawls with 'wget -r -l inf --no-parent -e robots=off
// --delete-after'; bin is the wget binary. Its requests tell Crawl which
// pages are reachable.
func WgetTool(bin string) Tool {
	return Tool{
		Name: "wget",
		Cmd: func(ctx context.Context, seed, dir string) (*exec.Cmd, error) {
			return exec.CommandContext(ctx, bin, "-r", "-l", "inf", "--no-parent", "-e", "robots=off", "--delete-after", "-q", "-P", dir, seed), nil
		},
	}
}

// CommandTool runs a command line (split at spaces; "{seed}" replaced by
// the seed URL, "{dir}" by the tool's directory). A line starting with
// "stopped:" on its stdout is reported as the row's Stopped.
func CommandTool(name, line string) Tool {
	return Tool{
		Name: name,
		Cmd: func(ctx context.Context, seed, dir string) (*exec.Cmd, error) {
			argv := strings.Fields(line)
			if len(argv) == 0 {
				return nil, fmt.Errorf("bench crawl: tool %s: empty command", name)
			}
			for i := range argv {
				argv[i] = strings.NewReplacer("{seed}", seed, "{dir}", dir).Replace(argv[i])
			}
			return exec.CommandContext(ctx, argv[0], argv[1:]...), nil
		},
		Result: func(stdout string, row *CrawlRow) {
			for l := range strings.Lines(stdout) {
				if strings.HasPrefix(l, "stopped:") {
					row.Stopped = strings.TrimSpace(l)
				}
			}
		},
	}
}

// Crawl serves each corpus on loopback and runs every tool on it from the
// seed, one at a time, counting what each requested from the server's own
// log: requests, distinct URLs, distinct HTML pages, per second, and the
// tool's peak RSS (its rusage). When both a tool with a Store and wget ran,
// every HTML page wget fetched with status 200 must, canonicalized, be a
// URL record of that store mapped to a document; the rest are Missing (the
// first ten on Log).
func Crawl(ctx context.Context, o CrawlOptions) ([]CrawlRow, error) {
	if len(o.Corpora) == 0 || len(o.Tools) == 0 {
		return nil, errors.New("bench crawl: no corpus or no tool")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.SeedPath == "" {
		o.SeedPath = "/"
	}
	if o.Limit == 0 {
		o.Limit = 10 * time.Minute
	}
	if o.Lock != "" {
		unlock, err := flock(ctx, o.Lock, o.Log)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	var rows []CrawlRow
	for _, dir := range o.Corpora {
		rs, err := crawlCorpus(ctx, o, dir)
		rows = append(rows, rs...)
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

func crawlCorpus(ctx context.Context, o CrawlOptions, corpus string) ([]CrawlRow, error) {
	name := filepath.Base(corpus)
	var srv corpusServer
	var err error
	if o.Nginx != "" {
		srv, err = startNginx(ctx, o.Nginx, corpus, o.Port)
	} else {
		srv, err = startFileServer(corpus, o.Port)
	}
	if err != nil {
		return nil, fmt.Errorf("bench crawl: serve %s: %w", corpus, err)
	}
	defer srv.stop()
	base := srv.base()
	work, err := os.MkdirTemp("", "bloomcrawl-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	var rows []CrawlRow
	var wgetLog []accessLine
	stores := map[int]string{} // row index → store
	for _, tool := range o.Tools {
		dir := filepath.Join(work, tool.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return rows, err
		}
		srv.reset()
		row := CrawlRow{Corpus: name, Tool: tool.Name}
		fmt.Fprintf(o.Log, "%s: %s ...\n", name, tool.Name)
		tctx, cancel := context.WithTimeout(ctx, o.Limit)
		cmd, err := tool.Cmd(tctx, base+o.SeedPath, dir)
		if err != nil {
			cancel()
			return rows, err
		}
		var out strings.Builder
		cmd.Stdout = &out
		cmd.Stderr = o.Log
		start := time.Now()
		runErr := cmd.Run()
		row.Seconds = time.Since(start).Seconds()
		cancel()
		if ctx.Err() != nil {
			return rows, ctx.Err()
		}
		if runErr != nil {
			// wget exits 8 when some link answered an error; a capped
			// crawler exits non-zero. Both are still measured.
			row.Stopped = fmt.Sprintf("exit: %v", runErr)
		}
		if cmd.ProcessState != nil {
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				row.PeakRSSMB = float64(ru.Maxrss) / 1024 // Linux reports kB
			}
		}
		if tool.Result != nil {
			tool.Result(out.String(), &row)
		}
		lines, err := srv.log()
		if err != nil {
			return rows, err
		}
		row.Requests, row.Distinct, row.Pages = countRequests(lines)
		if row.Seconds > 0 {
			row.DistinctPerS = float64(row.Distinct) / row.Seconds
			row.PagesPerS = float64(row.Pages) / row.Seconds
		}
		if tool.Name == "wget" {
			wgetLog = lines
		}
		if tool.Store != nil {
			stores[len(rows)] = tool.Store(dir)
		}
		rows = append(rows, row)
	}
	if wgetLog == nil {
		return rows, nil
	}
	for i, store := range stores {
		reach, missing, err := completeness(ctx, store, base, wgetLog)
		if err != nil {
			return rows, err
		}
		rows[i].ReachableHTML, rows[i].Missing = reach, len(missing)
		for j, m := range missing {
			if j == 10 {
				fmt.Fprintf(o.Log, "  ... and %d more\n", len(missing)-10)
				break
			}
			fmt.Fprintf(o.Log, "  missing: %s\n", m)
		}
	}
	return rows, nil
}

// countRequests returns the requests, the distinct URIs and the distinct
// HTML page URIs (isPagePath) of a server log.
func countRequests(lines []accessLine) (requests, distinct, pages int) {
	seen := map[string]bool{}
	for _, l := range lines {
		if !seen[l.uri] && isPagePath(l.uri) {
			pages++
		}
		seen[l.uri] = true
	}
	return len(lines), len(seen), pages
}

// WriteCrawlTable prints rows as the table of 'go run ./cmd/bloomcrawl-lab crawl'.
func WriteCrawlTable(w io.Writer, rows []CrawlRow) {
	fmt.Fprintf(w, "%-10s %-11s %9s %9s %8s %11s %7s %8s %9s  %s\n", "corpus", "tool", "distinct", "requests", "seconds", "distinct/s", "pages", "pages/s", "peak RSS", "notes")
	for _, r := range rows {
		note := r.Stopped
		if r.Tool == "bloomcrawl" {
			note = fmt.Sprintf("stored %d, duplicates %d; reachable HTML pages (per wget) neither stored nor mapped: %d of %d",
				r.Stored, r.Duplicates, r.Missing, r.ReachableHTML)
		}
		fmt.Fprintf(w, "%-10s %-11s %9d %9d %8.1f %11.0f %7d %8.0f %6.0f MB  %s\n", r.Corpus, r.Tool, r.Distinct, r.Requests, r.Seconds, r.DistinctPerS, r.Pages, r.PagesPerS, r.PeakRSSMB, note)
	}
}

// completeness checks that every HTML page wget fetched with status 200 is,
// canonicalized, a URL record of the store in dir that maps to a stored
// document.
func completeness(ctx context.Context, dir, base string, wget []accessLine) (reachable int, missing []string, err error) {
	db, err := storage.Open(dir, &storage.Options{ReadOnly: true})
	if err != nil {
		return 0, nil, err
	}
	defer db.Close()
	have := map[string]bool{}
	err = db.ForEachURL(ctx, func(r storage.URLRecord) error {
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

// isPagePath reports whether a request URI names an HTML page of a static
// corpus (.html, .htm, or a directory index).
func isPagePath(uri string) bool {
	p, _, _ := strings.Cut(uri, "?")
	return strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm") || strings.HasSuffix(p, "/")
}

// accessLine is one request a corpus server answered.
type accessLine struct {
	uri    string
	status int
}

// corpusServer serves one corpus directory on loopback and keeps a log of
// the requests since the last reset.
type corpusServer interface {
	base() string // http://127.0.0.1:PORT
	reset()
	log() ([]accessLine, error)
	stop()
}

// fileServer is Go's: static files, a directory's index.html, 404
// otherwise; each request logged when its status is written.
type fileServer struct {
	root string
	ln   net.Listener
	srv  *http.Server
	mu   sync.Mutex
	acc  []accessLine
}

func startFileServer(root string, port int) (*fileServer, error) {
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	s := &fileServer{root: root, ln: ln}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *fileServer) base() string { return "http://" + s.ln.Addr().String() }
func (s *fileServer) stop()        { s.srv.Close() }

func (s *fileServer) reset() {
	s.mu.Lock()
	s.acc = nil
	s.mu.Unlock()
}

func (s *fileServer) log() ([]accessLine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]accessLine(nil), s.acc...), nil
}

// loggedWriter logs the request when its status is written: before the
// client can see any of the answer.
type loggedWriter struct {
	http.ResponseWriter
	s      *fileServer
	uri    string
	logged bool
}

func (w *loggedWriter) WriteHeader(code int) {
	if !w.logged {
		w.logged = true
		w.s.mu.Lock()
		w.s.acc = append(w.s.acc, accessLine{uri: w.uri, status: code})
		w.s.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *loggedWriter) Write(b []byte) (int, error) {
	if !w.logged {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (s *fileServer) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &loggedWriter{ResponseWriter: rw, s: s, uri: r.URL.RequestURI()}
	defer func() {
		if !w.logged {
			w.WriteHeader(http.StatusOK)
		}
	}()
	p := path.Clean("/" + r.URL.Path)
	name := filepath.Join(s.root, filepath.FromSlash(p))
	st, err := os.Stat(name)
	if err == nil && st.IsDir() {
		if !strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, p+"/", http.StatusMovedPermanently)
			return
		}
		name = filepath.Join(name, "index.html")
		st, err = os.Stat(name)
	}
	if err != nil || st.IsDir() {
		http.NotFound(w, r)
		return
	}
	f, err := os.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	http.ServeContent(w, r, st.Name(), st.ModTime(), f)
}

// nginxServer runs an nginx child (daemon off) with a generated config
// that serves root and logs "METHOD URI STATUS BYTES MSEC" per request.
type nginxServer struct {
	cmd     *exec.Cmd
	prefix  string
	addr    string
	logPath string
}

func startNginx(ctx context.Context, bin, root string, port int) (*nginxServer, error) {
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	prefix, err := os.MkdirTemp("", "bloomcrawl-bench-nginx-")
	if err != nil {
		return nil, err
	}
	s := &nginxServer{prefix: prefix, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), logPath: filepath.Join(prefix, "access.log")}
	// Started as root, nginx's workers would run as nobody and could not
	// read a corpus only its owner may: run them as the corpus's owner.
	worker := ""
	if st, err := os.Stat(root); err == nil && os.Geteuid() == 0 {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			if u, err := user.LookupId(strconv.Itoa(int(sys.Uid))); err == nil {
				worker = "user " + u.Username + ";"
			}
		}
	}
	conf := fmt.Sprintf(`daemon off;
%[5]s
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 1024; }
http {
	log_format bench '$request_method $request_uri $status $body_bytes_sent $msec';
	access_log %[2]s bench;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	types { text/html html htm; text/css css; application/javascript js; image/png png; image/jpeg jpg jpeg; image/gif gif; image/svg+xml svg; }
	default_type application/octet-stream;
	server {
		listen %[3]s;
		root %[4]s;
		index index.html;
	}
}
`, prefix, s.logPath, s.addr, root, worker)
	confPath := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		os.RemoveAll(prefix)
		return nil, err
	}
	s.cmd = exec.CommandContext(ctx, bin, "-p", prefix, "-c", confPath)
	var stderr strings.Builder
	s.cmd.Stderr = &stderr
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(prefix)
		return nil, err
	}
	for i := 0; ; i++ { // wait until it listens
		c, err := net.DialTimeout("tcp", s.addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if i == 50 {
			s.stop()
			return nil, fmt.Errorf("nginx did not listen on %s: %s", s.addr, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s, nil
}

func (s *nginxServer) base() string { return "http://" + s.addr }

func (s *nginxServer) stop() {
	s.cmd.Process.Signal(syscall.SIGQUIT)
	s.cmd.Wait()
	os.RemoveAll(s.prefix)
}

func (s *nginxServer) reset() { os.Truncate(s.logPath, 0) }

// logSentinel is the path of the request log asks for to know that every
// earlier request is in the access log; its own line is not counted.
const logSentinel = "/.bloomcrawl-bench-log-sentinel"

// log reads the access log. nginx writes a request's line after it sent the
// response, so a tool that exited may have read its last response before
// nginx logged it: log first asks for logSentinel and waits (up to 5 s)
// until its line is there. nginx's one worker handles the requests in turn,
// so by then the earlier ones are logged.
func (s *nginxServer) log() ([]accessLine, error) {
	resp, err := http.Get(s.base() + logSentinel)
	if err != nil {
		return nil, fmt.Errorf("bench crawl: access log sentinel: %w", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for i := 0; ; i++ {
		lines, seen, err := s.readLog()
		if err != nil || seen {
			return lines, err
		}
		if i == 100 {
			return nil, fmt.Errorf("bench crawl: nginx did not log %s within 5 s", logSentinel)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readLog reads the access log's lines but logSentinel's, and whether that
// one was there.
func (s *nginxServer) readLog() (out []accessLine, sentinel bool, err error) {
	f, err := os.Open(s.logPath)
	if err != nil {
		return nil, false, fmt.Errorf("bench crawl: access log: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		if fields[1] == logSentinel {
			sentinel = true
			continue
		}
		st, _ := strconv.Atoi(fields[2])
		out = append(out, accessLine{uri: fields[1], status: st})
	}
	return out, sentinel, sc.Err()
}
