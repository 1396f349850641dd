package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// lastmodSite serves a sitemap listing /p/1 … /p/3 with their lastmod, the
// pages (with an ETag; 304 to a matching If-None-Match) and counts every
// request per path.
type lastmodSite struct {
	mu      sync.Mutex
	lastmod map[string]time.Time
	text    map[string]string
	etag    map[string]string
	hits    map[string]int
}

func (s *lastmodSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits[r.URL.Path]++
	switch {
	case r.URL.Path == "/sitemap.xml":
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := 1; i <= 3; i++ {
			p := fmt.Sprintf("/p/%d", i)
			fmt.Fprintf(&b, "<url><loc>http://%s%s</loc><lastmod>%s</lastmod></url>", r.Host, p, s.lastmod[p].Format(time.RFC3339))
		}
		b.WriteString("</urlset>")
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(b.String()))
	case s.text[r.URL.Path] != "":
		w.Header().Set("ETag", s.etag[r.URL.Path])
		if r.Header.Get("If-None-Match") == s.etag[r.URL.Path] {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><p>%s</p></main></body></html>", r.URL.Path, s.text[r.URL.Path])
	case r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><title>Home</title></head><body><main><p>nothing to see here, the sitemap lists it all</p></main></body></html>"))
	default:
		http.NotFound(w, r)
	}
}

func (s *lastmodSite) get(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func lastmodWords(tag string) string {
	var b strings.Builder
	for k := range 80 {
		fmt.Fprintf(&b, "%s%d ", tag, k)
	}
	return b.String()
}

// TestContinuousSitemapLastmod: in a continuous crawl whose rule re-reads
// a sitemap every 200 ms, a URL the sitemap lists with a lastmod newer
// than its last fetch is refreshed once (a conditional GET): a changed
// page is recorded as a new version with the new lastmod; a page whose
// server answers 304 despite its new lastmod gets the lastmod recorded and
// is not fetched again at the next reads; pages whose lastmod did not move
// are never fetched again.
func TestContinuousSitemapLastmod(t *testing.T) {
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	site := &lastmodSite{lastmod: map[string]time.Time{}, text: map[string]string{}, etag: map[string]string{}, hits: map[string]int{}}
	for i := 1; i <= 3; i++ {
		p := fmt.Sprintf("/p/%d", i)
		site.lastmod[p], site.text[p], site.etag[p] = old, lastmodWords(fmt.Sprintf("page%dword", i)), fmt.Sprintf(`"%d-1"`, i)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: site}}
	srv.Start()
	defer srv.Close()

	dir := t.TempDir()
	db, err := storage.Open(dir, StoreOptions(configs.Default().Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := configs.Default()
	cfg.Seeds = []string{srv.URL + "/"}
	cfg.Scope.Sitemaps = configs.Sitemaps{URLs: []string{srv.URL + "/sitemap.xml"}}
	cfg.Politeness.ObeyRobots = false
	cfg.Recrawl.Continuous = true
	cfg.Recrawl.Rules = []configs.RecrawlRule{{Match: `/sitemap\.xml$`, Every: configs.Duration(200 * time.Millisecond)}}
	cfg.Store.Dir = dir
	c, err := newCrawler(cfg, Options{Store: db, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var st Stats
	go func() {
		defer close(done)
		st, _ = c.Run(ctx)
	}()
	waitFor(t, "the pages fetched and the sitemap read twice", func() bool {
		return site.get("/p/1") == 1 && site.get("/p/2") == 1 && site.get("/p/3") == 1 && site.get("/sitemap.xml") >= 2
	})
	// /p/2 rewritten, /p/3 declared modified but unchanged (304).
	changed := time.Now().Add(time.Second).UTC().Truncate(time.Second)
	site.mu.Lock()
	site.lastmod["/p/2"], site.text["/p/2"], site.etag["/p/2"] = changed, lastmodWords("rewritten"), `"2-2"`
	site.lastmod["/p/3"] = changed
	site.mu.Unlock()
	waitFor(t, "the modified pages fetched again", func() bool { return site.get("/p/2") == 2 && site.get("/p/3") == 2 })
	reads := site.get("/sitemap.xml")
	waitFor(t, "three more sitemap reads", func() bool { return site.get("/sitemap.xml") >= reads+3 })
	cancel()
	<-done

	for p, want := range map[string]int{"/p/1": 1, "/p/2": 2, "/p/3": 2} {
		if n := site.get(p); n != want {
			t.Errorf("%s fetched %d times, want %d", p, n, want)
		}
	}
	rec2, err := db.URLRecord(srv.URL + "/p/2")
	if err != nil {
		t.Fatal(err)
	}
	if rec2.Versions != 2 || !rec2.Hints.LastMod.Equal(changed) {
		t.Errorf("/p/2 record: %d versions, lastmod %v; want 2 and %v", rec2.Versions, rec2.Hints.LastMod, changed)
	}
	if p, err := db.Page(rec2.DocID); err != nil || !strings.Contains(p.Text, "rewritten1") {
		t.Errorf("/p/2 page: %v, text %.40q", err, p.Text)
	}
	rec3, err := db.URLRecord(srv.URL + "/p/3")
	if err != nil {
		t.Fatal(err)
	}
	if rec3.VersionCount() != 1 || !rec3.Hints.LastMod.Equal(changed) {
		t.Errorf("/p/3 record: %d versions, lastmod %v; want 1 and %v (304: only the lastmod)", rec3.VersionCount(), rec3.Hints.LastMod, changed)
	}
	if st.LastModDue != 2 || st.NotModified != 1 || st.RefreshScheduled != 1 {
		t.Errorf("Stats: lastmod_due %d, not_modified %d, refresh_scheduled %d; want 2, 1 and 1 (the sitemap; the pages were queued once)", st.LastModDue, st.NotModified, st.RefreshScheduled)
	}
}
