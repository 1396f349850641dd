package warccheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/bloomcrawl/bloomcrawl/render"
)

// ReplayWebPage is the npm package the replay test loads, pinned as
// .ci/run installs it.
const ReplayWebPage = "replaywebpage@2.5.3"

// ReplayDir finds the unpacked npm package replaywebpage (its ui.js and
// sw.js): the one .ci/run unpacks under .ci/node_modules at the repository
// root. Outside CI a missing package skips tb; in CI (BLOOMCRAWL_CI=1) it
// fails tb.
func ReplayDir(tb testing.TB) string {
	tb.Helper()
	if dir, err := os.Getwd(); err == nil {
		for range 10 {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				p := filepath.Join(dir, ".ci", "node_modules", "replaywebpage")
				if _, err := os.Stat(filepath.Join(p, "sw.js")); err == nil {
					return p
				}
				break
			}
			dir = filepath.Dir(dir)
		}
	}
	if os.Getenv("BLOOMCRAWL_CI") == "1" {
		tb.Fatalf("the npm package %s is not in .ci/node_modules: .ci/run unpacks it", ReplayWebPage)
	}
	tb.Skipf("the npm package %s is not in .ci/node_modules: run .ci/run", ReplayWebPage)
	return ""
}

// Chromium finds Debian's chromium; outside CI a missing one skips tb, in
// CI it fails tb.
func Chromium(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("BLOOMCRAWL_CI") == "1" {
			tb.Fatalf("chromium is not installed (.ci/run installs it): %v", err)
		}
		tb.Skipf("chromium is not installed: %v", err)
	}
	return p
}

// Replayer is replayweb.page (the npm package's ui.js and sw.js, served
// from disk) loading one WACZ file, served on a loopback port, in a
// headless Chromium. Nothing is fetched from anywhere else: the replay page
// would load nothing from a CDN, and every request to the loopback server
// that is not one of its files is logged as a problem.
type Replayer struct {
	URL  string // the replay server, http://127.0.0.1:PORT
	ctx  context.Context
	stop func()

	mu       sync.Mutex
	problems []string
	logged   []string
	frameURL string // of the last inFrame
	ranges   int    // range requests for the WACZ
}

// NewReplayer serves the replay page for the WACZ file wacz and starts
// Chromium; both stop when tb ends.
func NewReplayer(tb testing.TB, wacz string) *Replayer {
	tb.Helper()
	dir := ReplayDir(tb)
	chromium := Chromium(tb)
	r := &Replayer{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	// The service worker's origin must be secure: http://127.0.0.1 is.
	r.URL = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, replayPage(req.URL.Query().Get("url")))
	})
	file := func(path, name string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, req *http.Request) { http.ServeFile(w, req, name) })
	}
	file("/ui.js", filepath.Join(dir, "ui.js"))
	// replayweb.page registers its service worker at replaybase + sw.js
	// with the scope replaybase; the worker serves replaybase's index page,
	// which loads ./ui.js from there.
	file("/replay/sw.js", filepath.Join(dir, "sw.js"))
	file("/replay/ui.js", filepath.Join(dir, "ui.js"))
	// Until the worker controls the replay iframe, replaybase itself is
	// fetched from the server: the index page the worker would serve.
	mux.HandleFunc("/replay/{$}", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html>\n<html><head><script src=\"./ui.js\"></script></head>\n<body><replay-app-main></replay-app-main></body></html>\n")
	})
	mux.HandleFunc("/crawl.wacz", func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Range") != "" {
			r.mu.Lock()
			r.ranges++
			r.mu.Unlock()
		}
		http.ServeFile(w, req, wacz) // answers range requests
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, req *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		// Under /replay/ the worker answers once it controls the page;
		// before, the page's first calls to its API reach the server.
		if strings.HasPrefix(req.URL.Path, "/replay/") {
			r.note("replay server: %s %s: not served (before the worker took over)", req.Method, req.URL)
		} else {
			r.problem("replay server: %s %s: not served", req.Method, req.URL)
		}
		http.NotFound(w, req)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)

	opts := append(render.ExecOptions(chromium), chromedp.UserDataDir(tb.TempDir()), chromedp.WindowSize(1280, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	r.ctx = ctx
	r.stop = func() {
		cancel()
		cancelAlloc()
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		srv.Shutdown(sctx)
	}
	tb.Cleanup(r.stop)
	if err := chromedp.Listen(ctx, r.event); err != nil {
		tb.Fatalf("starting chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		tb.Fatalf("starting chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		tb.Fatalf("starting chromium: %v", err)
	}
	return r
}

// replayPage is the page embedding replayweb.page, as its documentation
// embeds it, with the WACZ as its source and url the page to show.
func replayPage(url string) string {
	return `<!doctype html>
<html><head><meta charset="utf-8"><title>replay</title><script src="/ui.js"></script></head>
<body><replay-web-page source="/crawl.wacz" replaybase="/replay/" embed="replayonly" url="` + htmlAttr(url) + `"></replay-web-page></body></html>
`
}

func htmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// event records page exceptions as problems and browser log errors as
// logged: the replay page logs the 404 of an archived page's favicon that
// was never crawled, and of its own API while the WACZ is still loading.
func (r *Replayer) event(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			d += " " + ev.ExceptionDetails.Exception.Description
		}
		r.problem("page exception: %s", d)
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			r.note("browser log: %s %s", ev.Entry.Text, ev.Entry.URL)
		}
	}
}

func (r *Replayer) note(f string, a ...any) {
	r.mu.Lock()
	r.logged = append(r.logged, fmt.Sprintf(f, a...))
	r.mu.Unlock()
}

func (r *Replayer) problem(f string, a ...any) {
	r.mu.Lock()
	r.problems = append(r.problems, fmt.Sprintf(f, a...))
	r.mu.Unlock()
}

// Problems returns the page exceptions and the requests for files the
// replay server does not have, seen so far.
func (r *Replayer) Problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.problems...)
}

// Logged returns the browser's log errors, and the requests under /replay/
// that reached the server, seen so far.
func (r *Replayer) Logged() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.logged...)
}

// Ranges returns how many requests for the WACZ asked for a range.
func (r *Replayer) Ranges() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ranges
}

// Replayed is what Text found of a replayed page.
type Replayed struct {
	FrameURL string // the replay frame's URL: /replay/w/COLL/TSmp_/URL
	Title    string // its document's title
	Text     string // its document's body.innerText
}

// Text opens the replay page for url and waits, up to timeout, for the
// replay frame showing url (replayweb.page's iframe whose URL holds "mp_/"
// followed by url) to hold a document whose text contains want; it
// returns what that frame holds at the end. The text is read out of the
// frame itself, in an isolated JavaScript world of it.
func (r *Replayer) Text(url, want string, timeout time.Duration) (Replayed, error) {
	ctx, cancel := context.WithTimeout(r.ctx, timeout)
	defer cancel()
	var got Replayed
	if err := chromedp.Do(ctx, chromedp.Navigate(r.URL+"/?url="+neturl.QueryEscape(url))); err != nil {
		return got, fmt.Errorf("opening the replay page: %w", err)
	}
	var last error
	for {
		err := r.read(ctx, url, &got)
		if err == nil && strings.Contains(got.Text, want) {
			return got, nil
		}
		if err != nil {
			last = err
		} else {
			last = fmt.Errorf("frame %s: text %.300q does not contain %q", got.FrameURL, got.Text, want)
		}
		select {
		case <-ctx.Done():
			return got, fmt.Errorf("after %v: %w", timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// read reads the replay frame of url into got.
func (r *Replayer) read(ctx context.Context, url string, got *Replayed) error {
	return r.inFrame(ctx, func(u string) bool { return strings.HasSuffix(u, "mp_/"+url) }, func(world runtime.ExecutionContextID) error {
		got.FrameURL = r.frameURL
		if err := r.eval(ctx, world, "document.title", false, &got.Title); err != nil {
			return err
		}
		return r.eval(ctx, world, "document.body ? document.body.innerText : ''", false, &got.Text)
	})
}

// inFrame calls fn with an isolated JavaScript world of the first frame
// whose URL is, as match says (r.frameURL being set to its URL).
func (r *Replayer) inFrame(ctx context.Context, match func(string) bool, fn func(runtime.ExecutionContextID) error) error {
	tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return err
	}
	f := findFrame(tree.FrameTree, match)
	if f == nil {
		return errors.New("no such frame (frames: " + strings.Join(frameURLs(tree.FrameTree), ", ") + ")")
	}
	r.frameURL = f.URL
	world, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: f.ID, WorldName: "warccheck"})
	if err != nil {
		return err
	}
	return fn(world.ExecutionContextID)
}

// eval evaluates expr in world (awaiting its promise if await) into dst.
func (r *Replayer) eval(ctx context.Context, world runtime.ExecutionContextID, expr string, await bool, dst *string) error {
	yes := true
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: world, ReturnByValue: &yes, AwaitPromise: &await})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		d := res.ExceptionDetails.Text
		if res.ExceptionDetails.Exception != nil {
			d += " " + res.ExceptionDetails.Exception.Description
		}
		return fmt.Errorf("%s: %s", expr, d)
	}
	if err := json.Unmarshal(res.Result.Value, dst); err != nil {
		return fmt.Errorf("%s: %w", expr, err)
	}
	return nil
}

// findFrame finds the first frame of tree whose URL is as match says.
func findFrame(tree *page.FrameTree, match func(string) bool) *cdp.Frame {
	if tree == nil {
		return nil
	}
	if match(tree.Frame.URL) {
		return tree.Frame
	}
	for _, c := range tree.ChildFrames {
		if f := findFrame(c, match); f != nil {
			return f
		}
	}
	return nil
}

func frameURLs(tree *page.FrameTree) []string {
	if tree == nil {
		return nil
	}
	out := []string{tree.Frame.URL}
	for _, c := range tree.ChildFrames {
		out = append(out, frameURLs(c)...)
	}
	return out
}
