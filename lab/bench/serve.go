package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// ServeOptions says what Serve sends.
type ServeOptions struct {
	Pages    []Page    // the corpus (LoadCorpus); its text is cut into articles
	Clients  int       // concurrent HTTP clients, each with its own keep-alive connection, >= 1
	Requests int       // POST requests per language (and GET requests), >= 1
	Size     int       // article size in bytes of UTF-8 text, >= 500
	DupEvery int       // every DupEvery-th POST is a near-copy of an earlier document (0 = none)
	Direct   bool      // also send the same documents through Service.SubmitJSON in process, on a second store
	Store    string    // store directory; "" = a new temporary directory, removed afterwards
	Log      io.Writer // progress lines; nil = none
}

// ServeReport is what Serve measured; it marshals to the JSON that
// 'go run ./cmd/bloomcrawl-lab serve --json' prints.
type ServeReport struct {
	Clients    int           `json:"clients"`
	GOMAXPROCS int           `json:"gomaxprocs"`
	Results    []ServeResult `json:"results"`
	Store      string        `json:"-"` // the store directory used
}

// ServeResult is one phase of Serve.
type ServeResult struct {
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
	// New and Duplicates count the POST answers by filter status (POST
	// and SubmitJSON phases); Note says the same in words.
	New        int `json:"-"`
	Duplicates int `json:"-"`
}

// Serve starts the HTTP API on loopback over a real store and measures
// requests/s, latency percentiles and CPU per request of POST /v1/docid
// (Chinese, then English articles cut from o.Pages; every DupEvery-th a
// near-copy under a new URL) and of GET /v1/pages/{docId} on the documents
// stored. With o.Direct the same documents also go through
// Service.SubmitJSON in process on a second store, to show what HTTP costs.
func Serve(ctx context.Context, o ServeOptions) (ServeReport, error) {
	if o.Clients < 1 || o.Requests < 1 || o.Size < 500 || o.DupEvery < 0 {
		return ServeReport{}, errors.New("bench serve: clients and requests must be >= 1, size >= 500, dup-every >= 0")
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	zh, en := articles(o.Pages, o.Size)
	if len(zh) == 0 || len(en) == 0 {
		return ServeReport{}, fmt.Errorf("bench serve: %d Chinese and %d English articles in %d pages; need both", len(zh), len(en), len(o.Pages))
	}
	// A fixed shuffle, so that a run with fewer requests than articles
	// samples every corpus and two runs send the same requests.
	shuffle := rand.New(rand.NewPCG(3, 4))
	shuffle.Shuffle(len(zh), func(i, j int) { zh[i], zh[j] = zh[j], zh[i] })
	shuffle.Shuffle(len(en), func(i, j int) { en[i], en[j] = en[j], en[i] })
	fmt.Fprintf(log, "bench serve: %d Chinese and %d English articles of ~%d bytes\n", len(zh), len(en), o.Size)

	rep := ServeReport{Clients: o.Clients, GOMAXPROCS: runtime.GOMAXPROCS(0), Store: o.Store}
	if rep.Store == "" {
		dir, err := os.MkdirTemp("", "bloomcrawl-bench-serve-")
		if err != nil {
			return rep, err
		}
		defer os.RemoveAll(dir)
		rep.Store = dir
	}
	db, svc, err := openService(ctx, rep.Store)
	if err != nil {
		return rep, err
	}
	defer db.Close()
	var dsvc *api.Service
	if o.Direct {
		ddir, err := os.MkdirTemp("", "bloomcrawl-bench-serve-direct-")
		if err != nil {
			return rep, err
		}
		defer os.RemoveAll(ddir)
		ddb, s, err := openService(ctx, ddir)
		if err != nil {
			return rep, err
		}
		defer ddb.Close()
		dsvc = s
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return rep, err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- api.Serve(sctx, ln, api.NewHandler(svc, db, api.HandlerOptions{}), api.ServerOptions{})
	}()
	defer func() { stop(); <-served }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients, MaxConnsPerHost: o.Clients}}

	var docIDs []string
	for _, lang := range []struct {
		name string
		arts []article
	}{{"zh", zh}, {"en", en}} {
		bodies := postBodies(lang.name, lang.arts, o.Requests, o.Size, o.DupEvery)
		r, ids, err := postLoad(ctx, client, base, o.Clients, bodies)
		if err != nil {
			return rep, err
		}
		r.Name = "POST /v1/docid " + lang.name
		docIDs = append(docIDs, ids...)
		rep.Results = append(rep.Results, r)
		if dsvc == nil {
			continue
		}
		r, err = directLoad(ctx, dsvc, o.Clients, bodies)
		if err != nil {
			return rep, err
		}
		r.Name = "Service.SubmitJSON " + lang.name
		r.Note = fmt.Sprintf("same documents in process, no HTTP: %d new; HTTP costs %.2fx the CPU", r.New,
			float64(rep.Results[len(rep.Results)-1].CPUPerRequest)/float64(max(1, r.CPUPerRequest)))
		rep.Results = append(rep.Results, r)
	}
	if len(docIDs) == 0 {
		return rep, errors.New("bench serve: no document was stored: nothing to GET")
	}
	r, err := getLoad(ctx, client, base, o.Clients, o.Requests, docIDs)
	if err != nil {
		return rep, err
	}
	rep.Results = append(rep.Results, r)
	return rep, nil
}

// postLoad POSTs bodies to base/v1/docid from clients and counts the
// answers as new (their docIds returned) or duplicate, by reason.
func postLoad(ctx context.Context, client *http.Client, base string, clients int, bodies [][]byte) (ServeResult, []string, error) {
	var docIDs []string
	var dup int
	reasons := map[string]int{}
	var mu sync.Mutex
	r, err := load(ctx, clients, len(bodies), func(i int) error {
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
		mu.Lock()
		defer mu.Unlock()
		if ans.FilterStatus == api.FilterGood {
			docIDs = append(docIDs, ans.DocID)
		} else {
			dup++
			reasons[ans.FilterReason]++
		}
		return nil
	})
	if err != nil {
		return r, nil, err
	}
	r.New, r.Duplicates = len(docIDs), dup
	r.Note = fmt.Sprintf("%d new, %d duplicate (url %d, title %d, content %d), avg body %d B",
		r.New, r.Duplicates, reasons["url"], reasons["title"], reasons["content"], avgLen(bodies))
	return r, docIDs, nil
}

// directLoad sends bodies through svc.SubmitJSON in process, from clients
// goroutines, and counts the answers as new or duplicate.
func directLoad(ctx context.Context, svc *api.Service, clients int, bodies [][]byte) (ServeResult, error) {
	var good, dup atomic.Int64
	r, err := load(ctx, clients, len(bodies), func(i int) error {
		ans := svc.SubmitJSON(ctx, bodies[i], "request")
		if ans.Status != api.StatusSuccess {
			return errors.New(ans.Error)
		}
		if ans.FilterStatus == api.FilterGood {
			good.Add(1)
		} else {
			dup.Add(1)
		}
		return nil
	})
	r.New, r.Duplicates = int(good.Load()), int(dup.Load())
	return r, err
}

// getLoad GETs n pages chosen at random (fixed seed) among docIDs.
func getLoad(ctx context.Context, client *http.Client, base string, clients, n int, docIDs []string) (ServeResult, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	gets := make([]string, n)
	for i := range gets {
		gets[i] = base + "/v1/pages/" + docIDs[rng.IntN(len(docIDs))]
	}
	r, err := load(ctx, clients, len(gets), func(i int) error {
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
	r.Name = "GET /v1/pages/{docId}"
	r.Note = fmt.Sprintf("random among %d stored pages", len(docIDs))
	return r, err
}

// WriteServeTable prints rep as the table of 'go run ./cmd/bloomcrawl-lab serve'.
func WriteServeTable(w io.Writer, rep ServeReport) error {
	fmt.Fprintf(w, "bench serve: %d clients on loopback, GOMAXPROCS=%d, store %s\n", rep.Clients, rep.GOMAXPROCS, rep.Store)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "endpoint\trequests\terrors\treq/s\tp50\tp90\tp99\tmax\tcpu/req\t")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%v\t%v\t%v\t%v\t%v\t%s\n", r.Name, r.Requests, r.Errors, r.PerSecond,
			ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max), ms(r.CPUPerRequest), r.Note)
		if r.FirstErr != "" {
			fmt.Fprintf(tw, "  first error: %s\t\n", r.FirstErr)
		}
	}
	return tw.Flush()
}

// openService opens a store in dir and a docId service over it, with the
// gse dictionary loaded before any timing.
func openService(ctx context.Context, dir string) (*storage.DB, *api.Service, error) {
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

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

// load runs do(0..n-1) from `clients` goroutines, each index once, and
// measures each call's latency, the wall time and the process's CPU time.
// A call's error is counted (the first one kept), not fatal; ctx's error
// ends the run.
func load(ctx context.Context, clients, n int, do func(i int) error) (ServeResult, error) {
	lat := make([]time.Duration, n)
	cpu0 := processCPUTime()
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
	cpu := processCPUTime() - cpu0
	if err := ctx.Err(); err != nil {
		return ServeResult{}, err
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(n-1, int(p*float64(n)))] }
	r := ServeResult{Requests: n, Errors: int(errs.Load()), Wall: wall,
		PerSecond: float64(n) / wall.Seconds(), P50: q(.50), P90: q(.90), P99: q(.99), Max: lat[n-1],
		CPUPerRequest: cpu / time.Duration(n)}
	if s, ok := firstErr.Load().(string); ok {
		r.FirstErr = s
	}
	return r, nil
}

type article struct{ url, title, text string } // url is set per request

// articles cuts the main text of every page into articles of about size
// bytes and sorts them by Language into Chinese and English; others are
// dropped.
func articles(pages []Page, size int) (zh, en []article) {
	for _, p := range pages {
		for i, chunk := range chunkText(p.Text, size) {
			a := article{title: fmt.Sprintf("%s (%d)", p.Title, i+1), text: chunk}
			switch Language(chunk) {
			case "zh":
				zh = append(zh, a)
			case "en":
				en = append(en, a)
			}
		}
	}
	return zh, en
}

// chunkText cuts s at line ends into pieces of about size bytes; a line
// longer than size is cut at rune boundaries; a last piece under half the
// size is dropped.
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

// postBodies builds n request bodies for one language, each under a new
// URL. Request i carries article i while there are articles; past them, an
// article made of random lines of all the articles until it reaches size
// bytes (real text, but a document no earlier request sent). Every
// dupEvery-th request is instead a near-copy (three 5-character spans
// dropped, a line added) of an earlier request's document.
func postBodies(lang string, arts []article, n, size, dupEvery int) [][]byte {
	rng := rand.New(rand.NewPCG(uint64(len(lang)), 7))
	var lines []string
	for _, a := range arts {
		for l := range strings.Lines(a.text) {
			if len(l) >= 40 {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) == 0 { // articles of short lines only: mix whole articles
		for _, a := range arts {
			lines = append(lines, a.text)
		}
	}
	sent := make([]article, 0, n)
	out := make([][]byte, 0, n)
	for i := 0; i < n; i++ {
		var a article
		switch {
		case dupEvery > 0 && i%dupEvery == dupEvery-1:
			src := sent[rng.IntN(len(sent))]
			runes := []rune(src.text)
			for k := 0; k < 3 && len(runes) > 100; k++ {
				j := rng.IntN(len(runes) - 5)
				runes = append(runes[:j], runes[j+5:]...)
			}
			a = article{title: src.title, text: string(runes) + "\n(reprinted)"}
		case i < len(arts):
			a = arts[i]
		default:
			var b strings.Builder
			for b.Len() < size {
				b.WriteString(lines[rng.IntN(len(lines))])
			}
			first, _, _ := strings.Cut(b.String(), "\n")
			a = article{title: string([]rune(first)[:min(30, len([]rune(first)))]), text: b.String()}
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
