package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	registerBench(command{
		name:    "serve",
		summary: "HTTP API load: requests/s and latency of POST /v1/docid and GET /v1/pages/{docId}",
		run:     runBenchServe,
	})
}

const benchServeCorpora = "/tmp/corpora/handbook/zh-CN,/tmp/corpora/handbook/zh-TW,/tmp/corpora/edu/debian-edu-doc-zh-cn,/tmp/corpora/faq/zh-cn,/tmp/corpora/maintguide/maint-guide-zh-cn,/tmp/corpora/python311"

func runBenchServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench serve", "bench serve [--corpora DIRS] [--clients N] [--requests N] [--size BYTES] [--dup-every K] [--json]", stderr)
	corpora := fs.String("corpora", benchServeCorpora, "comma-separated directories of HTML pages; their text is cut into articles")
	clients := fs.Int("clients", 8, "concurrent HTTP clients (each with its own keep-alive connection)")
	requests := fs.Int("requests", 1000, "POST requests per language (and GET requests)")
	size := fs.Int("size", 5000, "article size in bytes of UTF-8 text")
	dupEvery := fs.Int("dup-every", 4, "every K-th POST is a near-copy of an earlier document under a new URL (0 = none); the others are real articles, then mixes of their lines")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	direct := fs.Bool("direct", true, "also send the same documents through Service.SubmitJSON in process (no HTTP), on a second store, for comparison")
	store := fs.String("store", "", "store directory (default: a new temporary directory, removed afterwards)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *clients < 1 || *requests < 1 || *size < 500 || *dupEvery < 0 {
		return usagef("--clients and --requests must be >= 1, --size >= 500, --dup-every >= 0")
	}

	// Articles from real pages.
	t0 := time.Now()
	zh, en, err := benchArticles(strings.Split(*corpora, ","), *size)
	if err != nil {
		return err
	}
	if len(zh) == 0 || len(en) == 0 {
		return fmt.Errorf("bench serve: found %d Chinese and %d English articles under %s; need both (see /work/shared/lab/README.md for the corpora)", len(zh), len(en), *corpora)
	}
	// A fixed shuffle, so that a run with fewer requests than articles
	// samples every corpus and two runs send the same requests.
	shuffle := rand.New(rand.NewPCG(3, 4))
	shuffle.Shuffle(len(zh), func(i, j int) { zh[i], zh[j] = zh[j], zh[i] })
	shuffle.Shuffle(len(en), func(i, j int) { en[i], en[j] = en[j], en[i] })
	fmt.Fprintf(stderr, "bench serve: %d Chinese and %d English articles of ~%d bytes from %s (%v)\n", len(zh), len(en), *size, *corpora, time.Since(t0).Round(time.Millisecond))

	// A real server on loopback over a real store.
	dir := *store
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bloomcrawl-bench-serve-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	db, svc, err := benchService(ctx, dir)
	if err != nil {
		return err
	}
	defer db.Close()
	// The same documents through Service.SubmitJSON, in process, on a
	// second store: what HTTP costs on top.
	var ddb *storage.DB
	var dsvc *api.Service
	if *direct {
		ddir, err := os.MkdirTemp("", "bloomcrawl-bench-serve-direct-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(ddir)
		if ddb, dsvc, err = benchService(ctx, ddir); err != nil {
			return err
		}
		defer ddb.Close()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- api.Serve(sctx, ln, api.NewHandler(svc, db, api.HandlerOptions{}), api.ServerOptions{})
	}()
	defer func() { stop(); <-served }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients, MaxConnsPerHost: *clients}}

	var results []benchServeResult
	var docIDs []string
	var idMu sync.Mutex
	for _, lang := range []struct {
		name string
		arts []benchArticle
	}{{"zh", zh}, {"en", en}} {
		bodies := benchPostBodies(lang.name, lang.arts, *requests, *size, *dupEvery)
		var good, dup atomic.Int64
		var reasonMu sync.Mutex
		reasons := map[string]int{}
		r, err := benchLoad(ctx, *clients, len(bodies), func(i int) error {
			resp, err := client.Post(base+"/v1/docid", "application/json", bytes.NewReader(bodies[i]))
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			var ans api.Response
			if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
				return err
			}
			if resp.StatusCode != 200 || ans.Status != api.StatusSuccess {
				return fmt.Errorf("status %d: %s", resp.StatusCode, ans.Error)
			}
			if ans.FilterStatus == api.FilterGood {
				good.Add(1)
				idMu.Lock()
				docIDs = append(docIDs, ans.DocID)
				idMu.Unlock()
			} else {
				dup.Add(1)
				reasonMu.Lock()
				reasons[ans.FilterReason]++
				reasonMu.Unlock()
			}
			return nil
		})
		if err != nil {
			return err
		}
		r.Name = "POST /v1/docid " + lang.name
		r.Note = fmt.Sprintf("%d new, %d duplicate (url %d, title %d, content %d), avg body %d B",
			good.Load(), dup.Load(), reasons["url"], reasons["title"], reasons["content"], avgLen(bodies))
		results = append(results, r)
		if !*direct {
			continue
		}
		var dgood atomic.Int64
		r, err = benchLoad(ctx, *clients, len(bodies), func(i int) error {
			ans := dsvc.SubmitJSON(ctx, bodies[i], "request")
			if ans.Status != api.StatusSuccess {
				return errors.New(ans.Error)
			}
			if ans.FilterStatus == api.FilterGood {
				dgood.Add(1)
			}
			return nil
		})
		if err != nil {
			return err
		}
		r.Name = "Service.SubmitJSON " + lang.name
		r.Note = fmt.Sprintf("same documents in process, no HTTP: %d new; HTTP costs %.2fx the CPU", dgood.Load(),
			float64(results[len(results)-1].CPUPerRequest)/float64(max(1, r.CPUPerRequest)))
		results = append(results, r)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	gets := make([]string, *requests)
	for i := range gets {
		gets[i] = base + "/v1/pages/" + docIDs[rng.IntN(len(docIDs))]
	}
	r, err := benchLoad(ctx, *clients, len(gets), func(i int) error {
		resp, err := client.Get(gets[i])
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.Name = "GET /v1/pages/{docId}"
	r.Note = fmt.Sprintf("random among %d stored pages", len(docIDs))
	results = append(results, r)

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"clients": *clients, "gomaxprocs": runtime.GOMAXPROCS(0), "results": results})
	}
	fmt.Fprintf(stdout, "bench serve: %d clients on loopback, GOMAXPROCS=%d, store %s\n", *clients, runtime.GOMAXPROCS(0), dir)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "endpoint\trequests\terrors\treq/s\tp50\tp90\tp99\tmax\tcpu/req\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%v\t%v\t%v\t%v\t%v\t%s\n", r.Name, r.Requests, r.Errors, r.PerSecond,
			ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max), ms(r.CPUPerRequest), r.Note)
		if r.FirstErr != "" {
			fmt.Fprintf(tw, "  first error: %s\t\n", r.FirstErr)
		}
	}
	return tw.Flush()
}

// benchService opens a store in dir and a docId service over it, with the
// gse dictionary loaded before any timing.
func benchService(ctx context.Context, dir string) (*storage.DB, *api.Service, error) {
	db, err := storage.Open(dir, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	d.Sign("预热", "加载分词词典 load the dictionary")
	svc, err := api.NewService(ctx, d, db, nil)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, svc, nil
}

// benchServeResult is one phase of bench serve.
type benchServeResult struct {
	Name      string        `json:"name"`
	Requests  int           `json:"requests"`
	Errors    int           `json:"errors"`
	FirstErr  string        `json:"first_error,omitempty"`
	Wall      time.Duration `json:"wall_ns"`
	PerSecond float64       `json:"requests_per_second"`
	P50       time.Duration `json:"p50_ns"`
	P90       time.Duration `json:"p90_ns"`
	P99       time.Duration `json:"p99_ns"`
	Max       time.Duration `json:"max_ns"`
	// CPUPerRequest is the process's user+system CPU time (server and
	// client together) per request: less sensitive than latency to other
	// work on the machine.
	CPUPerRequest time.Duration `json:"cpu_per_request_ns"`
	Note          string        `json:"note"`
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

// benchLoad runs do(0..n-1) from `clients` goroutines and measures each
// call's latency and the wall time.
func benchLoad(ctx context.Context, clients, n int, do func(i int) error) (benchServeResult, error) {
	lat := make([]time.Duration, n)
	cpu0 := cpuTime()
	var next atomic.Int64
	var errs atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				t := time.Now()
				err := do(i)
				lat[i] = time.Since(t)
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	cpu := cpuTime() - cpu0
	if err := ctx.Err(); err != nil {
		return benchServeResult{}, err
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(n-1, int(p*float64(n)))] }
	r := benchServeResult{Requests: n, Errors: int(errs.Load()), Wall: wall,
		PerSecond: float64(n) / wall.Seconds(), P50: q(.50), P90: q(.90), P99: q(.99), Max: lat[n-1],
		CPUPerRequest: cpu / time.Duration(n)}
	if s, ok := firstErr.Load().(string); ok {
		r.FirstErr = s
	}
	return r, nil
}

type benchArticle struct{ url, title, text string } // url is set per request

// benchArticles cuts the text of every HTML page under dirs into articles
// of about size bytes, and sorts them into Chinese (at least 20% Han
// characters) and English (at most 1% Han, e.g. a language menu, and mostly
// Latin letters); mixed ones are dropped.
func benchArticles(dirs []string, size int) (zh, en []benchArticle, err error) {
	for _, dir := range dirs {
		dir = strings.TrimSpace(dir)
		if dir == "" {
			continue
		}
		// The lab corpora are symlinks; WalkDir does not follow a root link.
		root, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("bench serve: corpus %s: %w", dir, err)
		}
		err = filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() || !strings.HasSuffix(path, ".html") {
				return nil
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			doc, err := goquery.NewDocumentFromReader(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("parse %s: %w", path, err)
			}
			title := strings.TrimSpace(doc.Find("title").First().Text())
			doc.Find("script, style, nav, header, footer, head").Remove()
			for i, chunk := range chunkText(cleanText(doc.Find("body").Text()), size) {
				a := benchArticle{title: fmt.Sprintf("%s (%d)", title, i+1), text: chunk}
				switch han, latin, total := scriptCounts(chunk); {
				case han*5 >= total:
					zh = append(zh, a)
				case han*100 <= total && latin*2 >= total:
					en = append(en, a)
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("bench serve: read corpus %s: %w", dir, err)
		}
	}
	return zh, en, nil
}

// cleanText trims every line and keeps at most one blank line in a row.
func cleanText(s string) string {
	var b strings.Builder
	blank := true
	for line := range strings.Lines(s) {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			if !blank {
				b.WriteString("\n")
			}
			blank = true
			continue
		}
		b.WriteString(line)
		b.WriteString("\n")
		blank = false
	}
	return b.String()
}

// chunkText cuts s at line ends into pieces of about size bytes; a last
// piece under half the size is dropped.
func chunkText(s string, size int) []string {
	var out []string
	var cur strings.Builder
	for line := range strings.Lines(s) {
		if cur.Len()+len(line) > size && cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
		if len(line) > size { // one huge line: cut at a rune boundary
			for len(line) > size {
				cut := size
				for cut > 0 && !utf8.RuneStart(line[cut]) {
					cut--
				}
				out = append(out, line[:cut])
				line = line[cut:]
			}
		}
		cur.WriteString(line)
	}
	if cur.Len() >= size/2 {
		out = append(out, cur.String())
	}
	return out
}

func scriptCounts(s string) (han, latin, total int) {
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
		case r < 128 && unicode.IsLetter(r):
			latin++
		case unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsDigit(r):
			continue
		}
		total++
	}
	return
}

// benchPostBodies builds n request bodies for one language, each under a new
// URL. Request i carries article i while there are articles; past them, an
// article made of random lines of all the articles until it reaches size
// bytes (real text, but a document no earlier request sent). Every
// dupEvery-th request is instead a near-copy (three 5-character spans
// dropped, a line added) of an earlier request's document.
func benchPostBodies(lang string, arts []benchArticle, n, size, dupEvery int) [][]byte {
	rng := rand.New(rand.NewPCG(uint64(len(lang)), 7))
	var lines []string
	for _, a := range arts {
		for l := range strings.Lines(a.text) {
			if len(l) >= 40 {
				lines = append(lines, l)
			}
		}
	}
	sent := make([]benchArticle, 0, n)
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		var a benchArticle
		switch {
		case dupEvery > 0 && i%dupEvery == dupEvery-1:
			src := sent[rng.IntN(len(sent))]
			runes := []rune(src.text)
			for k := 0; k < 3 && len(runes) > 100; k++ {
				j := rng.IntN(len(runes) - 5)
				runes = append(runes[:j], runes[j+5:]...)
			}
			a = benchArticle{title: src.title, text: string(runes) + "\n(reprinted)"}
		case i < len(arts):
			a = arts[i]
		default:
			var b strings.Builder
			for b.Len() < size {
				b.WriteString(lines[rng.IntN(len(lines))])
			}
			first, _, _ := strings.Cut(b.String(), "\n")
			a = benchArticle{title: string([]rune(first)[:min(30, len([]rune(first)))]), text: b.String()}
		}
		a.url = fmt.Sprintf("http://bench.invalid/%s/%d", lang, i) // a new URL for every request
		sent = append(sent, a)
		b, _ := json.Marshal(api.Request{URL: a.url, Title: a.title, Content: a.text, Category: "0", Media: "bench", ImageCount: i % 5})
		out = append(out, b)
	}
	return out
}

func avgLen(bs [][]byte) int {
	n := 0
	for _, b := range bs {
		n += len(b)
	}
	return n / max(1, len(bs))
}
