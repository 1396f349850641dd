package render_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/lab/jssite"
	"github.com/bloomcrawl/bloomcrawl/render"
)

// newBrowser starts a Browser on the Chromium the tests drive.
func newBrowser(t *testing.T, o render.Options) *render.Browser {
	t.Helper()
	o.BrowserPath = jssite.Chromium(t)
	b, err := render.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// serverPage fetches path from the site as the crawler would, and returns
// it as a render.Page whose requests go to the site.
func serverPage(t *testing.T, base, path string) render.Page {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return render.Page{URL: base + path, HTML: buf, ContentType: resp.Header.Get("Content-Type"),
		Fetch: func(r *http.Request) (*http.Response, error) { return http.DefaultTransport.RoundTrip(r) }}
}

func TestRenderSite(t *testing.T) {
	site := jssite.New(jssite.Options{})
	srv := site.Serve(t)
	b := newBrowser(t, render.Options{Tabs: 2, Timeout: 10 * time.Second, Scroll: 4})
	pages := map[string]jssite.Page{}
	for _, p := range site.Manifest() {
		pages[p.Path] = p
	}
	cases := []struct {
		path string
		want []string // in the rendered HTML
	}{
		{"/js/", []string{`href="/js/page/1"`, pages["/js/"].Phrase}},
		{"/js/page/2", []string{pages["/js/page/2"].Phrase}},
		{"/app/r/3", []string{pages["/app/r/3"].Phrase, `href="/app/r/1"`}},
		{"/feed", []string{`href="/item/f12"`}},
		{"/more", []string{`href="/item/m6"`}},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			res, err := b.Render(context.Background(), serverPage(t, srv.URL, c.path))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s, %d requests, %d scrolls, %d clicks", c.path, res.Elapsed, res.Requests, res.Scrolls, res.Clicks)
			for _, w := range c.want {
				if !strings.Contains(string(res.HTML), w) {
					t.Errorf("rendered %s lacks %q (scrolls %d, clicks %d, requests %d, timed out %v)", c.path, w, res.Scrolls, res.Clicks, res.Requests, res.TimedOut)
				}
			}
		})
	}
	// /app/ replaces its URL with /app/home: a route no link names
	res, err := b.Render(context.Background(), serverPage(t, srv.URL, "/app/"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Routes) != 1 || res.Routes[0] != srv.URL+"/app/home" {
		t.Errorf("routes of /app/ = %q, want [%s/app/home]", res.Routes, srv.URL)
	}
}

// TestRenderRestartsCrashedBrowser kills the browser between two pages:
// the second page restarts it and is rendered; a page whose script never
// returns fails within its budget, and the browser renders the next page.
func TestRenderRestartsCrashedBrowser(t *testing.T) {
	site := jssite.New(jssite.Options{})
	srv := site.Serve(t)
	b := newBrowser(t, render.Options{Tabs: 1, Timeout: 3 * time.Second})
	if _, err := b.Render(context.Background(), serverPage(t, srv.URL, "/js/page/1")); err != nil {
		t.Fatal(err)
	}
	pid := b.PID()
	if pid == 0 {
		t.Fatal("no browser process")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := b.Render(context.Background(), serverPage(t, srv.URL, "/js/page/2"))
	if err != nil {
		t.Fatalf("render after a crash: %v", err)
	}
	if want := site.Manifest(); !strings.Contains(string(res.HTML), phrase(want, "/js/page/2")) {
		t.Errorf("after the restart the page lacks its text")
	}
	if st := b.Stats(); st.Restarts != 1 || res.Attempts != 2 {
		t.Errorf("stats %+v, attempts %d: want 1 restart, 2 attempts", st, res.Attempts)
	}

	hung := render.Page{URL: srv.URL + "/hung", HTML: []byte(`<html><body><p>x</p><script>while (true) {}</script></body></html>`)}
	start := time.Now()
	if _, err := b.Render(context.Background(), hung); err == nil {
		t.Error("a page whose script never returns was rendered")
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("the hung page took %s", el)
	}
	if _, err := b.Render(context.Background(), serverPage(t, srv.URL, "/js/page/3")); err != nil {
		t.Errorf("render after a hung page: %v", err)
	}
}

func phrase(m []jssite.Page, path string) string {
	for _, p := range m {
		if p.Path == path {
			return p.Phrase
		}
	}
	return "\x00 no such page"
}

// No state goes from one page to the next: what a page stores (local
// storage, a cookie) the next page of the same site does not see.
func TestRenderSharesNoState(t *testing.T) {
	srv := jssite.New(jssite.Options{}).Serve(t)
	b := newBrowser(t, render.Options{Tabs: 1})
	const show = `<p id="out"></p><script>document.getElementById('out').textContent = 'seen:' + localStorage.getItem('k') + ';' + document.cookie + ';';</script>`
	set := render.Page{URL: srv.URL + "/a", HTML: []byte(`<html><body><script>localStorage.setItem('k', 'v'); document.cookie = 'c=1; path=/';</script>` + show + `</body></html>`)}
	res, err := b.Render(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.HTML), "seen:v;c=1;") {
		t.Fatalf("the page did not store its state: %s", res.HTML)
	}
	res, err = b.Render(context.Background(), render.Page{URL: srv.URL + "/b", HTML: []byte(`<html><body>` + show + `</body></html>`)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.HTML), "seen:null;;") {
		t.Errorf("the next page saw the state of the first: %s", res.HTML)
	}
}
