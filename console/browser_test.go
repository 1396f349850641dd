package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/bloomcrawl/bloomcrawl/render"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/console"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// ScreenshotsEnv names a directory where TestConsoleInBrowser also saves
// its screenshots (docs/console.md shows them); they always go to the
// test's temp dir.
const ScreenshotsEnv = "BLOOMCRAWL_CONSOLE_SCREENSHOTS"

// crawlEnv is a crawl of the sample site served with the console, wired as
// `crawl --serve` wires it (ServeCrawl).
type crawlEnv struct {
	site  *samplesite.Site
	base  string // the site
	url   string // the console
	db    *storage.DB
	c     *crawler.Crawler
	done  chan struct{}
	stats crawler.Stats
	err   error
}

// startCrawl crawls the sample site slowly (one request at a time, 80 ms
// apart) with its calendar trap in scope, up to depth 200, and serves the
// API with the console on a loopback port from the moment the crawl has
// started (Options.Started), until the test ends.
func startCrawl(t *testing.T) *crawlEnv {
	t.Helper()
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: -1})
	base, stopSite, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopSite)
	cfg := configs.Default()
	cfg.Seeds = []string{base + "/"}
	cfg.Scope.MaxDepth = 200
	cfg.Politeness.Concurrency = 2
	cfg.Politeness.PerHostParallelism = 1
	cfg.Politeness.Delay = configs.Duration(80 * time.Millisecond)
	cfg.Fetch.Timeout = configs.Duration(5 * time.Second)
	cfg.Dedup.Capacity = 10_000
	cfg.Store.Dir = t.TempDir()
	db, err := storage.Open(cfg.Store.Dir, crawler.StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	dd, err := crawler.NewCrawlDeduper(cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &crawlEnv{site: site, base: base, db: db, done: make(chan struct{})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.url = "http://" + ln.Addr().String()
	opts := crawler.Options{Store: db, Dedup: dd, Grace: 2 * time.Second}
	start, wait := console.ServeCrawl(ctx, console.ServeOptions{Listener: ln, Dedup: dd, Store: db})
	opts.Started = func() { start(e.c) }
	if opts, err = crawler.NewOptions(cfg, opts, false); err != nil {
		t.Fatal(err)
	}
	if e.c, err = crawler.New(opts); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(e.done)
		e.stats, e.err = e.c.Run(ctx)
	}()
	t.Cleanup(func() {
		e.c.Stop()
		<-e.done
		if err := wait(); err != nil {
			t.Errorf("serving the console: %v", err)
		}
		cancel()
		dd.Close()
		db.Close()
	})
	waitFor(t, "the console to answer", func() bool {
		resp, err := http.Get(e.url + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	return e
}

// browser starts Chromium for the test and records every page error:
// uncaught exceptions, console errors and warnings, browser log errors
// (CSP violations among them), failed requests and responses >= 400.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	errs []string
	shot string // screenshot directories, ";"-separated
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("BLOOMCRAWL_CI") == "1" {
			t.Fatalf("chromium is not installed (.ci/run installs it): %v", err)
		}
		t.Skipf("chromium is not installed: %v", err)
	}
	opts := append(render.ExecOptions(path), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{ctx: ctx}
	if err := chromedp.Listen(ctx, b.event); err != nil {
		t.Fatal(err)
	}
	for _, enable := range []func() error{
		func() error { _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); return err },
		func() error { _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); return err },
		func() error { _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); return err },
	} {
		if err := enable(); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func (b *browser) event(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		msg = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			msg = "console." + string(ev.Type) + ": " + strings.Join(args, " ")
		}
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			msg = "log " + string(ev.Entry.Source) + ": " + ev.Entry.Text + " " + ev.Entry.URL
		}
	case *network.EventLoadingFailed:
		// an event stream closed by leaving its page is canceled, not failed
		if !ev.Canceled {
			msg = "request failed: " + ev.ErrorText + " (" + string(ev.Type) + ")"
		}
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 {
			msg = fmt.Sprintf("HTTP %d for %s", ev.Response.Status, ev.Response.URL)
		}
	}
	if msg != "" {
		b.mu.Lock()
		b.errs = append(b.errs, msg)
		b.mu.Unlock()
	}
}

func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// number reads a number shown with thousands separators.
func (b *browser) number(t *testing.T, sel string) int64 {
	t.Helper()
	s := b.text(t, sel)
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		t.Fatalf("%s shows %q, not a number", sel, s)
	}
	return n
}

// screenshot saves the page as NAME.png in the test's temp dir and in
// $BLOOMCRAWL_CONSOLE_SCREENSHOTS when set.
func (b *browser) screenshot(t *testing.T, dir, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{dir}
	if d := os.Getenv(ScreenshotsEnv); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(45 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// jaccardRE matches a Jaccard estimate as the document view shows it.
var jaccardRE = regexp.MustCompile(`^[01]\.\d\d$`)

func requests(s *samplesite.Site) int {
	r, _ := s.Requests()
	return len(r)
}

// TestConsoleInBrowser drives the console in Chromium while it watches a
// crawl of the sample site: the counts move and match /v1/stats, pause
// stops the requests the site receives and resume restarts them, the
// document view lists the known duplicates of a document, an exclusion
// added in the page stops the calendar trap so the crawl finishes, and no
// page error or failed request occurs. It saves a screenshot of each view.
func TestConsoleInBrowser(t *testing.T) {
	b := newBrowser(t)
	e := startCrawl(t)
	shots := t.TempDir()
	t.Logf("screenshots in %s", shots)
	m := e.site.Manifest()

	// Status: live numbers.
	b.do(t, chromedp.Navigate(e.url+"/"), chromedp.WaitVisible(chromedp.CSS("#state")))
	waitFor(t, "the status to say running", func() bool { return b.text(t, "#state") == crawler.StateRunning })
	first := b.number(t, `[data-k="fetched"]`)
	waitFor(t, "the fetched count to move in the page", func() bool { return b.number(t, `[data-k="fetched"]`) > first+3 })

	// Let the crawl reach the copies of an article before pausing.
	var doc samplesite.Doc
	for _, d := range m.Docs {
		if d.Kind == samplesite.KindArticle && len(d.Copies) >= 2 && d.Copies[1].Kind == samplesite.CopySyndicated {
			doc = d
			break
		}
	}
	if doc.Path == "" {
		t.Fatal("the sample site has no article with a print and a syndicated copy")
	}
	waitFor(t, "the article's copies to be fetched", func() bool {
		for _, c := range doc.Copies {
			if e.site.Hits(c.Path) == 0 {
				return false
			}
		}
		return e.site.Hits(doc.Path) > 0
	})
	b.screenshot(t, shots, "status")

	// Pause: the site gets no more requests; resume: it does again.
	b.do(t, chromedp.Click(chromedp.CSS("#pause")))
	waitFor(t, "the answer to pause", func() bool { return strings.Contains(b.text(t, "#answer"), "paused") })
	waitFor(t, "the status to say paused", func() bool { return b.text(t, "#state") == crawler.StatePaused })
	waitFor(t, "the fetches in flight to end", func() bool { return e.c.InFlight() == 0 })
	before := requests(e.site)
	time.Sleep(1500 * time.Millisecond)
	if n := requests(e.site); n != before {
		t.Fatalf("paused, yet the site got %d more requests", n-before)
	}
	// The numbers shown match the crawl's and /v1/stats (still while paused).
	var st storage.Stats
	resp, err := http.Get(e.url + "/v1/stats")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	cs := e.c.Stats()
	for _, c := range []struct {
		sel  string
		want int64
	}{
		{`[data-k="store_pages"]`, int64(st.Pages)}, {`[data-k="store_urls"]`, int64(st.URLs)},
		{`[data-k="store_duplicates"]`, int64(st.Duplicates)}, {`[data-k="store_queue"]`, int64(st.Queue)},
		{`[data-k="fetched"]`, cs.Fetched}, {`[data-k="stored"]`, cs.Stored}, {`[data-k="duplicates"]`, cs.Duplicates},
		{`[data-k="queued"]`, cs.Queued}, {`[data-k="errors"]`, cs.Errors},
	} {
		waitFor(t, fmt.Sprintf("%s to show %d (shows %s)", c.sel, c.want, b.text(t, c.sel)), func() bool { return b.number(t, c.sel) == c.want })
	}
	if st.Pages == 0 || st.Duplicates == 0 {
		t.Errorf("/v1/stats %+v: want pages and duplicates by now", st)
	}

	// Pages: find the article by its title, open it, see its duplicates.
	b.do(t, chromedp.Navigate(e.url+"/console/pages"), chromedp.WaitVisible(chromedp.CSS("#page-q")),
		chromedp.SendKeys(chromedp.CSS("#page-q"), doc.Title), chromedp.Submit(chromedp.CSS("#page-q")),
		chromedp.WaitVisible(chromedp.CSS("#results")))
	rec, err := e.db.URLRecord(e.base + doc.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.text(t, "#results"), doc.Title) {
		t.Fatalf("searching %q: results %q", doc.Title, b.text(t, "#results"))
	}
	b.screenshot(t, shots, "pages")
	b.do(t, chromedp.Click(chromedp.CSS(`#results a[href="/console/doc/`+rec.DocID.String()+`"]`)), chromedp.WaitVisible(chromedp.CSS("#mapped")))
	mapped := b.text(t, "#mapped")
	urls, err := e.db.URLs(rec.DocID)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if !strings.Contains(mapped, u.URL) {
			t.Errorf("document view does not list %s, mapped to it (%s)", u.URL, u.Reason)
		}
	}
	near := 0
	for _, c := range doc.Copies {
		r, err := e.db.URLRecord(e.base + c.Path)
		switch {
		case err != nil:
			t.Errorf("copy %s: %v", c.Path, err)
		case c.SameText && r.DocID != rec.DocID:
			t.Errorf("same-text copy %s maps to %s, not %s", c.Path, r.DocID, rec.DocID)
		case r.DocID == rec.DocID && !strings.Contains(mapped, e.base+c.Path):
			t.Errorf("copy %s not listed", c.Path)
		case r.DocID == rec.DocID && !c.SameText:
			near++
		}
	}
	jaccards, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#mapped tbody td:nth-child(4)")].map(e => e.textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, j := range jaccards {
		if jaccardRE.MatchString(j) {
			shown++
		}
	}
	if near > 0 && shown == 0 {
		t.Errorf("document view shows no Jaccard estimate for its near-duplicates: %q", jaccards)
	}
	if !strings.Contains(mapped, "original") || (near > 0 && !strings.Contains(mapped, "near-duplicate")) {
		t.Errorf("document view does not say why the URLs map to it:\n%s", mapped)
	}
	t.Logf("document %s: %d URLs listed, %d near-duplicate copies", rec.DocID, len(urls), near)
	b.screenshot(t, shots, "document")

	// Hosts: the site's host, its responses by status and type, skips.
	b.do(t, chromedp.Navigate(e.url+"/console/hosts?sort=fetched"), chromedp.WaitVisible(chromedp.CSS("#hosts")))
	host := strings.TrimPrefix(e.base, "http://")
	if s := b.text(t, "#hosts"); !strings.Contains(s, host) || !strings.Contains(s, "read") {
		t.Errorf("hosts table %q: want %s with its robots.txt read", s, host)
	}
	if s := b.text(t, "#by-status"); !strings.Contains(s, "200") || !strings.Contains(s, "404") {
		t.Errorf("responses by status %q: want 200 and 404", s)
	}
	if s := b.text(t, "#by-type"); !strings.Contains(s, "text/html") {
		t.Errorf("responses by type %q: want text/html", s)
	}
	if s := b.text(t, "#skips"); !strings.Contains(s, "robots") || !strings.Contains(s, "error") {
		t.Errorf("latest skips %q: want robots and error", s)
	}
	// the tables refresh themselves (htmx, every 3 s) while the crawl runs
	fetchedCell := `#hosts tbody tr:first-child td:nth-child(4)`
	b.screenshot(t, shots, "hosts")

	// Steer: resume, then exclude the calendar trap.
	b.do(t, chromedp.Navigate(e.url+"/console/steer"), chromedp.WaitVisible(chromedp.CSS("#resume")), chromedp.Click(chromedp.CSS("#resume")))
	waitFor(t, "the answer to resume", func() bool { return strings.Contains(b.text(t, "#answer"), "resumed") })
	resumedAt := requests(e.site)
	var shownFetched int64
	waitFor(t, "requests after resume", func() bool { return requests(e.site) > resumedAt+2 })
	b.do(t, chromedp.Navigate(e.url+"/console/hosts?sort=fetched"), chromedp.WaitVisible(chromedp.CSS("#hosts")))
	shownFetched = b.number(t, fetchedCell)
	waitFor(t, "the hosts table to refresh itself", func() bool { return b.number(t, fetchedCell) > shownFetched })
	b.do(t, chromedp.Navigate(e.url+"/console/steer"), chromedp.WaitVisible(chromedp.CSS("#exclude-pattern")))
	if e.site.Hits("/calendar?month=1") == 0 {
		t.Fatal("the calendar trap was never fetched: nothing for the exclusion to stop")
	}
	b.do(t, chromedp.SendKeys(chromedp.CSS("#exclude-pattern"), `/calendar\?`), chromedp.Click(chromedp.CSS("#exclude")),
		chromedp.WaitVisible(chromedp.CSS("#exclusions code")))
	excludedAt := requests(e.site)
	if s := b.text(t, "#answer"); !strings.Contains(s, "excluded") {
		t.Errorf("answer to the exclusion: %q", s)
	}
	select {
	case <-e.done:
	case <-time.After(60 * time.Second):
		t.Fatal("the crawl did not finish after the calendar trap was excluded")
	}
	if e.err != nil {
		t.Fatalf("crawl: %v", e.err)
	}
	all, _ := e.site.Requests()
	late := 0
	for _, u := range all[excludedAt:] {
		if strings.HasPrefix(u, "/calendar") {
			late++
		}
	}
	if late > 2 { // at most the fetches in flight when the exclusion came (concurrency 2)
		t.Errorf("%d calendar pages requested after the exclusion", late)
	}
	b.do(t, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#exclusions")))
	if s := b.text(t, "#exclusions"); !strings.Contains(s, `/calendar\?`) {
		t.Errorf("exclusions table %q", s)
	}
	if s := b.text(t, "#actions"); !strings.Contains(s, "pause") || !strings.Contains(s, "resume") || !strings.Contains(s, "exclude") {
		t.Errorf("actions table %q: want pause, resume, exclude", s)
	}
	b.screenshot(t, shots, "steer")

	// The status page once the crawl is over, and on a narrow screen.
	b.do(t, chromedp.Navigate(e.url+"/"), chromedp.WaitVisible(chromedp.CSS("#state")))
	waitFor(t, "the status to say finished", func() bool { return b.text(t, "#state") == crawler.StateFinished })
	time.Sleep(300 * time.Millisecond) // the chart draws from its history request
	b.screenshot(t, shots, "status-finished")
	b.do(t, chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#state")))
	time.Sleep(300 * time.Millisecond)
	b.screenshot(t, shots, "status-narrow")

	// Without JavaScript the views are the same server-rendered pages.
	for _, p := range []string{"/", "/console/hosts", "/console/pages?q=" + doc.Title, "/console/doc/" + rec.DocID.String(), "/console/steer", "/console/queue.txt"} {
		resp, err := http.Get(e.url + strings.ReplaceAll(p, " ", "+"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", p, resp.Status)
		}
	}
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("page errors:\n%s", strings.Join(errs, "\n"))
	}
}
