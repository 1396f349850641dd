package console

import (
	"context"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Crawl is what the console reads from and does to a running crawl (a
// *crawler.Crawler). Every method must be safe to call while it runs.
type Crawl interface {
	Stats() crawler.Stats
	State() string
	InFlight() int
	Breakdown() crawler.Breakdown
	Hosts() []crawler.HostState
	Skipped() []crawler.Skip
	FilterStats() (urlfilter.Stats, bool)
	Pause()
	Resume()
	Stop()
	Exclusions() []crawler.Exclusion
	AddExclusion(pattern string) error
	RemoveExclusion(pattern string) (bool, error)
}

// Options configures New. Store is required; the zero value of every other
// field is its default.
type Options struct {
	// Store is the store the pages views read (and whose size and free
	// space the status view shows).
	Store *storage.DB
	// Crawl is the running crawl (crawl --serve); nil: no crawl (serve),
	// the status view shows the store only and steering is refused.
	Crawl Crawl
	// WARCDir is the crawl's WARC directory (store.warc_dir); with it the
	// document view links the page's WARC record, found in the CDXJ
	// indexes written beside the closed WARC files. "": no link.
	WARCDir string
	// ClusterURL, if set, is the Redis of the cluster the crawl is a node
	// of (crawl --cluster; ClusterPrefix its key prefix, "" the default):
	// the cluster view reads its state there (cluster.Inspect).
	ClusterURL, ClusterPrefix string
	// Logger receives one line per steering action. nil discards.
	Logger *slog.Logger
	// SampleEvery is how often the crawl is sampled for the chart and
	// the live view. Default 1s.
	SampleEvery time.Duration
}

// Console is the web console's http.Handler. Create it with New.
type Console struct {
	o     Options
	log   *slog.Logger
	mux   *http.ServeMux
	pages map[string]*template.Template
	hist  *history
	store storeStats
	ctx   context.Context // ends server-sent event streams

	actMu   sync.Mutex
	actions []action // newest last, at most maxActions
}

// action is one steering action, as the steer view lists it.
type action struct {
	At     time.Time
	What   string
	Result string
	Err    bool
}

const maxActions = 100

// New returns the console over o. It samples o.Crawl every o.SampleEvery
// until ctx ends, and ends its event streams when ctx ends (cancel ctx
// before shutting the HTTP server down gracefully, or the shutdown waits
// for the streams). It panics if o.Store is nil.
func New(ctx context.Context, o Options) *Console {
	if o.Store == nil {
		panic("console: New: nil Options.Store")
	}
	if o.SampleEvery <= 0 {
		o.SampleEvery = time.Second
	}
	c := &Console{o: o, log: o.Logger, mux: http.NewServeMux(), ctx: ctx, store: storeStats{db: o.Store}}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.pages = parseTemplates()
	c.hist = newHistory(3600)
	if o.Crawl != nil {
		go c.sample(ctx)
	}
	assets, _ := fs.Sub(assetFS, "assets")
	c.mux.Handle("GET /console/assets/", http.StripPrefix("/console/assets/", cacheAssets(http.FileServerFS(assets))))
	c.mux.HandleFunc("GET /{$}", c.statusPage)
	c.mux.HandleFunc("GET /console/{$}", c.statusPage)
	c.mux.HandleFunc("GET /console/status.json", c.statusJSON)
	c.mux.HandleFunc("GET /console/history.json", c.historyJSON)
	c.mux.HandleFunc("GET /console/events", c.events)
	c.mux.HandleFunc("GET /console/hosts", c.hostsPage)
	c.mux.HandleFunc("GET /console/queue.txt", c.queueText)
	c.mux.HandleFunc("GET /console/pages", c.searchPage)
	c.mux.HandleFunc("GET /console/doc/{docId}", c.docPage)
	c.mux.HandleFunc("GET /console/warc/{docId}", c.warcRecord)
	c.mux.HandleFunc("GET /console/steer", c.steerPage)
	c.mux.HandleFunc("POST /console/steer/{action}", c.steer)
	c.mux.HandleFunc("GET /console/cluster", c.clusterPage)
	return c
}

// ServeHTTP serves the console's routes: "/" and everything under
// "/console/".
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'")
	h.Set("Referrer-Policy", "same-origin")
	c.mux.ServeHTTP(w, r)
}

func cacheAssets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// page is what every template gets.
type page struct {
	Title   string
	Nav     string // the view's name, to mark it in the navigation
	Crawl   bool   // a crawl is running (steering and live views)
	Cluster bool
	Msg     string // the answer to the last action (?msg=)
	MsgErr  bool
	Data    any
}

func (c *Console) render(w http.ResponseWriter, r *http.Request, name, title string, data any) {
	p := page{Title: title, Nav: name, Crawl: c.o.Crawl != nil, Cluster: c.o.ClusterURL != "", Data: data,
		Msg: r.URL.Query().Get("msg"), MsgErr: r.URL.Query().Get("err") == "1"}
	t := c.pages[name]
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, "layout", p); err != nil {
		c.fail(w, http.StatusInternalServerError, fmt.Errorf("render %s: %w", name, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(b.String()))
}

// fail answers an error as a short HTML page.
func (c *Console) fail(w http.ResponseWriter, code int, err error) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<!doctype html><title>%d</title><p>%s</p><p><a href=\"/console/\">console</a></p>", code, template.HTMLEscapeString(err.Error()))
}

// record logs a steering action and keeps it for the steer view.
func (c *Console) record(what, result string, err error) {
	a := action{At: time.Now(), What: what, Result: result}
	if err != nil {
		a.Result, a.Err = err.Error(), true
		c.log.Warn("console: "+what+" failed", "err", err)
	} else {
		c.log.Info("console: "+what, "result", result)
	}
	c.actMu.Lock()
	c.actions = append(c.actions, a)
	if len(c.actions) > maxActions {
		c.actions = c.actions[len(c.actions)-maxActions:]
	}
	c.actMu.Unlock()
}

// sameOrigin reports whether a state-changing request comes from the
// console's own pages: a browser says so in Sec-Fetch-Site or Origin;
// a client that sends neither is not a browser (no cross-site request).
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}
