package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/lab/jssite"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// jsConfig is the crawl of the generated JavaScript site with render mode.
func jsConfig(t testing.TB, base, mode string) *configs.Config {
	cfg := siteConfig(base)
	cfg.Scope.Exclude = nil
	cfg.Fetch.Render = mode
	cfg.Fetch.BrowserPath = jssite.Chromium(t)
	cfg.Fetch.RenderConcurrency = 2
	cfg.Fetch.RenderTimeout = configs.Duration(10 * time.Second)
	cfg.Fetch.RenderScroll = 4
	return cfg
}

// stored returns, by path, the text of the page each URL of the crawl
// reads as (its own, or its document's for a duplicate).
func stored(r crawlResult) map[string]storage.Page {
	out := map[string]storage.Page{}
	for path, u := range r.urls {
		if p, ok := r.pages[u.DocID]; ok && u.DocID != 0 {
			out[path] = p
		}
	}
	return out
}

// TestRenderAuto crawls the JavaScript site with fetch.render auto and
// never: auto finds and stores every page with its real text, renders
// only the pages built by scripts, and keeps the SPA routes (one shell)
// apart; never misses the pages only a browser sees and merges the
// shells.
func TestRenderAuto(t *testing.T) {
	site := jssite.New(jssite.Options{})
	srv := site.Serve(t)
	manifest := site.Manifest()

	auto := crawlInto(t, context.Background(), jsConfig(t, srv.URL, "auto"), t.TempDir(), nil, nil)
	if auto.err != nil {
		t.Fatal(auto.err)
	}
	pages := stored(auto)
	for _, p := range manifest {
		pg, ok := pages[p.Path]
		switch {
		case !ok:
			t.Errorf("auto: %s (%s) not stored; record %+v", p.Path, p.Kind, auto.urls[p.Path])
		case auto.urls[p.Path].Duplicate:
			t.Errorf("auto: %s (%s) stored as a duplicate of %s", p.Path, p.Kind, pg.URL)
		case !strings.Contains(pg.Text, p.Phrase) && p.Kind != "feed" && p.Kind != "more":
			t.Errorf("auto: %s (%s) stored without its text %q: %q", p.Path, p.Kind, p.Phrase, pg.Text)
		}
		if ok && p.NeedsBrowser && pg.ServerHTML == nil {
			t.Errorf("auto: %s (%s) needs a browser and was not rendered", p.Path, p.Kind)
		}
		if ok && (p.Kind == "plain" || p.Kind == "item") {
			if pg.ServerHTML != nil {
				t.Errorf("auto: plain page %s was rendered", p.Path)
			}
		}
	}
	rs := auto.stats.Render
	if rs == nil {
		t.Fatal("auto: no render stats")
	}
	var needs int64
	for _, p := range manifest {
		if p.NeedsBrowser || p.Kind == "feed" || p.Kind == "more" {
			needs++
		}
	}
	if rs.Rendered != needs || rs.Failed != 0 {
		t.Errorf("auto: rendered %d pages (failed %d), want %d: %+v", rs.Rendered, rs.Failed, needs, rs)
	}
	t.Logf("auto: %+v", *rs)
	if n := site.Hits("/private/stats"); n != 0 || rs.Refused != 2 {
		t.Errorf("the browser's requests robots.txt disallows or out of scope: /private/ served %d times, %d refused, want 2", n, rs.Refused)
	}
	for _, p := range manifest {
		if n := site.Hits(p.Path); n > 1 && p.Path != "/" {
			t.Errorf("auto: %s requested %d times (a rendered page is not fetched again)", p.Path, n)
		}
	}

	// without a browser, two SPA routes given as seeds are the same shell
	ncfg := jsConfig(t, srv.URL, "never")
	ncfg.Seeds = append(ncfg.Seeds, srv.URL+"/app/r/1", srv.URL+"/app/r/2")
	never := crawlInto(t, context.Background(), ncfg, t.TempDir(), nil, nil)
	if never.err != nil {
		t.Fatal(never.err)
	}
	if never.stats.Render != nil {
		t.Errorf("never: render stats %+v", never.stats.Render)
	}
	npages := stored(never)
	var missed, textless []string
	for _, p := range manifest {
		pg, ok := npages[p.Path]
		switch {
		case !ok:
			missed = append(missed, p.Path)
		case !strings.Contains(pg.Text, p.Phrase):
			textless = append(textless, p.Path)
		}
		if p.Hidden && ok && !strings.HasPrefix(p.Path, "/app/r/") {
			t.Errorf("never: found %s, which only a browser can find", p.Path)
		}
	}
	t.Logf("never: missed %d of %d pages %v; stored without their text %v", len(missed), len(manifest), missed, textless)
	if len(missed) == 0 || len(textless) == 0 {
		t.Errorf("never: missed %v, textless %v: the site should defeat a crawl without a browser", missed, textless)
	}
	// the SPA's shells are one document without a browser, and apart
	// with one
	r1, r2 := never.urls["/app/r/1"], never.urls["/app/r/2"]
	if r1.DocID == 0 || r1.DocID != r2.DocID {
		t.Errorf("never: the shells of /app/r/1 and /app/r/2 are not merged: %+v, %+v", r1, r2)
	}
	if a1, a2 := auto.urls["/app/r/1"], auto.urls["/app/r/2"]; a1.DocID == a2.DocID {
		t.Errorf("auto: /app/r/1 and /app/r/2 merged: %+v, %+v", a1, a2)
	}
}

// TestRenderWARC crawls the JavaScript site with --warc: the requests the
// browser's pages made (app.js, the fetch() calls of the SPA and the
// lists) are archived as request/response records beside the pages, so
// the capture replays; the WARC passes the generic checks.
func TestRenderWARC(t *testing.T) {
	site := jssite.New(jssite.Options{})
	srv := site.Serve(t)
	// always: what is archived, not which pages auto picks (a loaded
	// machine can time renders out and settle the host to render none)
	cfg := jsConfig(t, srv.URL, "always")
	cfg.Fetch.RenderTimeout = configs.Duration(20 * time.Second)
	recs := warcCrawl(t, cfg)
	for _, e := range warccheck.Check(recs) {
		t.Error(e)
	}
	got := map[string]map[string]bool{} // URI → record types
	for _, rec := range recs {
		if got[rec.URI] == nil {
			got[rec.URI] = map[string]bool{}
		}
		got[rec.URI][rec.Type] = true
	}
	for _, u := range []string{"/app.js", "/api/route?path=%2Fapp%2Fr%2F1", "/api/feed?page=2", "/api/more?page=1", "/js/page/1"} {
		if !got[srv.URL+u]["request"] || !got[srv.URL+u]["response"] {
			t.Errorf("WARC lacks request/response records of %s: %v", u, got[srv.URL+u])
		}
	}
}

// TestRenderFailureRecorded: a page whose render fails (a script that
// never returns) is recorded as an error naming the render, not stored
// from its shell and not lost; the crawl goes on.
func TestRenderFailureRecorded(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><body><h1>Home</h1><p>`+strings.Repeat("A plain page with plenty of text. ", 30)+`</p><a href="/spin">spin</a></body></html>`)
		case "/spin":
			fmt.Fprint(w, `<html><body><div id="root"></div><script>while (true) {}</script></body></html>`)
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cfg := jsConfig(t, srv.URL, "auto")
	cfg.Fetch.RenderTimeout = configs.Duration(2 * time.Second)
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	spin := r.urls["/spin"]
	if spin.DocID != 0 || !strings.Contains(spin.Err, "render") || spin.Status != 200 {
		t.Errorf("/spin: %+v, want an error record naming the render", spin)
	}
	if home := r.urls["/"]; home.DocID == 0 {
		t.Errorf("/ not stored: %+v", home)
	}
	if rs := r.stats.Render; rs == nil || rs.Failed != 1 || rs.Rendered != 1 {
		t.Errorf("render stats %+v", rs)
	}
}
