package crawler

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gocolly/colly/v2"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/render"
	"github.com/bloomcrawl/bloomcrawl/similar"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// pageStore is the part of *storage.DB the crawler needs.
type pageStore interface {
	Commit(ctx context.Context, c storage.Commit) ([]uint64, error)
	QueueScan(after uint64, limit int) ([]storage.QueueEntry, error)
	QueueLen(ctx context.Context) (int, error)
	URLRecord(u string) (storage.URLRecord, error)
	Page(docID storage.DocID) (storage.Page, error)
	Known(ctx context.Context, urls []string, known []bool) error
	ForEachURL(ctx context.Context, fn func(storage.URLRecord) error) error
	ForEachFingerprint(ctx context.Context, fn func(storage.Fingerprint) error) error
}

// deduper is the part of *contentdedup.Deduper the crawler needs: Check
// and AddURL while crawling, the Restore methods when resuming, and
// Threshold for the rules a cluster's nodes must share.
type deduper interface {
	CheckCanonical(url, canonical, title, text string) contentdedup.Verdict
	Prepare(title, text string) (contentdedup.Signature, similar.Entry)
	CheckSig(url, canonical string, sig contentdedup.Signature, sim similar.Entry) contentdedup.Verdict
	AddURL(url string, docID uint64)
	RestoreDoc(docID uint64, url string, sig contentdedup.Signature)
	RestoreURL(url string, docID uint64)
	RestoreAlias(docID uint64, sig contentdedup.Signature)
	Threshold() int
}

// archiver writes the crawl's HTTP exchanges (an *archive.Writer).
type archiver interface {
	Write(ctx context.Context, f archive.Fetch) error
}

// urlFilter is the URL filter (a urlfilter.Filter).
type urlFilter interface {
	TestAndAdd(key string) (seen bool)
}

// Settings are the parts of a crawl's configuration that the pipeline
// reads (NewSettings builds them from a configs.Config that passed
// Validate; New does not validate them again beyond what building the
// scope and the frontier checks).
type Settings struct {
	// Seeds are the crawl's start URLs (seeds).
	Seeds []string
	// Scope limits what is crawled (scope.*); with AllowedHosts empty the
	// seeds' hosts are allowed.
	Scope configs.Scope
	// Politeness is the crawl's pace and manners (politeness.*).
	Politeness configs.Politeness
	// Fetch bounds each fetch (fetch.*).
	Fetch configs.Fetch
	// Recrawl is the refresh schedule of a continuous crawl (recrawl.*).
	Recrawl configs.Recrawl
	// Verify confirms the URL filter's "seen" answers against the store's
	// URL records and queue entries (dedup.verify), remembering
	// VerifyCacheBytes of recent URLs (dedup.verify_cache_bytes); a
	// cluster node counts the cluster's false positives it caught.
	Verify           bool
	VerifyCacheBytes int64
	// KeepRaw keeps every fetch's exchanges in the Store (store.keep_raw:
	// an archive.Keeper ahead of Options.Archive), with the secrets of
	// request heads if KeepSecrets (store.warc_secrets).
	KeepRaw, KeepSecrets bool
}

// Options configures a Crawler: the settings it reads and the components
// it runs. NewOptions (components.go) builds them from a configs.Config.
type Options struct {
	// Settings are the crawl's settings (NewSettings).
	Settings Settings
	// Store persists pages, URL records, the queue and the URL trace.
	// Required (a *storage.DB, opened with StoreOptions).
	Store pageStore
	// Dedup decides whether a page is a new document. Required (a
	// *contentdedup.Deduper: NewDeduper or NewCrawlDeduper); a caller
	// that shares the deduper with another user (crawl --serve) passes
	// the one it shares.
	Dedup deduper
	// URLFilter is the URL filter every candidate URL is tested against
	// (NewURLFilter, a urlfilter.Filter). Required unless Cluster is set.
	URLFilter urlFilter
	// FalsePositives, if set, reports the URL filter's false positives so
	// far (an audited filter, urlfilter.Audit, passed as URLFilter); Stats
	// reports those counted after the resume rebuild (collisions among
	// already-fetched URLs lose nothing).
	FalsePositives func() uint64
	// Window is the number of queue entries the frontier keeps in memory.
	// Default 50,000.
	Window int
	// Grace is how long in-flight fetches may run on after ctx is cancelled
	// before they are aborted (and left queued). Default 10s.
	Grace time.Duration
	// Progress, if set, is called every ProgressEvery (default 1s) from one
	// goroutine, and once more at the end.
	Progress      func(Stats)
	ProgressEvery time.Duration
	// Logger receives per-URL errors (Debug) and crawl events (Info). nil
	// discards.
	Logger *slog.Logger
	// ParseBudget bounds the bytes of HTML parsed at the same time by all
	// workers together (a page's DOM takes several times its size; one
	// page larger than the budget is parsed alone). Default 8 MiB.
	ParseBudget int64
	// RetryBackoff is the wait before the first retry of a failed fetch
	// (doubled for each further one; a Retry-After header wins). Default 1s.
	RetryBackoff time.Duration
	// Archive, if set, receives every HTTP exchange of the crawl (an
	// *archive.Writer: WARC output). Each fetch's exchanges (redirect hops,
	// final response) go with content dedup's verdict on the page, before
	// the page is committed to the store; robots.txt and the failed tries
	// of a retried fetch go on their own. A write error stops the crawl
	// like a store error (the URL stays queued).
	Archive archiver
	// Started, if set, is called once by Run after it has rebuilt Dedup
	// and URLFilter from the store and queued the seeds, before the first
	// fetch. A caller that shares Dedup and Store with another writer
	// (crawl --serve) starts that writer here, so it never sees a
	// half-rebuilt index.
	Started func()
	// HostCounters is the most hosts whose fetch counters the crawl keeps
	// one by one for Hosts (the console's hosts view); the counters of the
	// hosts pushed out are summed in Breakdown's OtherHosts. Default (0)
	// DefaultHostCounters.
	HostCounters int
	// Cluster, if set (a *cluster.Node), makes this crawler one node of a
	// cluster crawl: the cluster is the queue and the URL filter
	// (URLFilter and FalsePositives are then ignored), this node fetches
	// the entries of the partitions it holds a lease on, and Run ends when
	// the whole cluster's frontier is empty. What cluster mode does not
	// support is refused (CheckCluster in NewOptions; New refuses the
	// settings).
	Cluster clusterState
	// MappedArrays keeps dedup.verify's URL cache in a memory-mapped file
	// in the store's directory (see frontier.Options.SpillDir) instead of
	// on the heap. False (the zero value) keeps it on the heap; the crawl
	// command sets it unless --mapped-arrays=false (see
	// contentdedup.Options.MapArrays).
	MappedArrays bool
}

// Crawler runs one crawl. Create it with New and call Run once.
type Crawler struct {
	o        Options
	settings Settings // o.Settings
	log      *slog.Logger
	canon    *urlfilter.Canonicalizer
	scope    *urlfilter.Scope
	front    *frontier.Frontier
	col      *colly.Collector
	types    []string
	jobs     sync.Map // request URL → *job, for the redirect handler
	// fetchSlots, when set, bounds the fetches in flight to
	// politeness.concurrency while more workers run (workers): a
	// cluster node's workers also wait for the document log
	// (newRedisBackend).
	fetchSlots chan struct{}
	workers    int
	// parseMem bounds the bytes of HTML being parsed at once (parseBudget).
	parseMem    *semaphore.Weighted
	parseBudget int64
	archiveErr  atomic.Pointer[error] // first failed write of an exchange outside a job

	// robotsTxt reads each host's robots.txt (rules, Crawl-delay,
	// Sitemap: lines); client fetches it and the sitemaps.
	robotsTxt *robotsCache
	client    *http.Client
	// sitemapClient fetches sitemaps, their redirects checked as a
	// page's are (checkSitemapRedirect)
	sitemapClient *http.Client
	agent         string // the user agent's product token, lowercase
	// sitemapHosts holds the origins whose sitemaps were offered
	// (scope.sitemaps auto: the seed hosts, then every host entered)
	sitemapHosts sync.Map

	counters
	// refresh is the refresh schedule of a continuous crawl (nil: none);
	// discovery the delays from discovery to fetch.
	refresh                   *refresher
	sched                     *clusterSchedule // in cluster mode, instead of refresh (redisrefresh.go)
	discovery                 delayHist
	resumedURLs, resumedQueue int64
	start                     time.Time

	// the backend: the local one, or a cluster node's (Options.Cluster)
	queue  urlQueue
	filter urlFilterState
	docs   documents

	// access: proxies, headers, basic auth (access.go); jar the cookie
	// jar; throttle the per-host pace (throttle.go)
	access   *access
	jar      *cookieJar
	throttle *throttle

	ctl control // pause, stop, exclusions, what is fetched (control.go)
	// render renders pages in a browser (nil: fetch.render never);
	// browserClient makes the browser's requests (render.go).
	render        *renderer
	browserClient *http.Client
}

// New checks o and builds a crawler. Errors name the bad option.
func New(o Options) (*Crawler, error) {
	switch {
	case o.Store == nil:
		return nil, errors.New("crawler: Options.Store is required")
	case o.Dedup == nil:
		return nil, errors.New("crawler: Options.Dedup is required")
	case o.URLFilter == nil && o.Cluster == nil:
		return nil, errors.New("crawler: Options.URLFilter is required")
	}
	o.setDefaults()
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := o.Settings
	c := &Crawler{o: o, settings: s, log: log, canon: &urlfilter.Canonicalizer{},
		parseMem: semaphore.NewWeighted(o.ParseBudget), parseBudget: o.ParseBudget}
	if s.KeepRaw {
		// store.keep_raw: every fetch's exchanges go to the store too
		// (before the WARC writer, if any), for a lossless export
		rs, ok := o.Store.(archive.RawStore)
		if !ok {
			return nil, errors.New("crawler: store.keep_raw: this store cannot keep raw fetches")
		}
		c.o.Archive = &archive.Keeper{Store: rs, Next: c.o.Archive, Secrets: s.KeepSecrets}
	}
	var err error
	if c.scope, err = newScope(c.canon, s); err != nil {
		return nil, err
	}
	for _, t := range s.Fetch.ContentTypes {
		c.types = append(c.types, strings.ToLower(strings.TrimSpace(t)))
	}
	if err := c.newBackend(); err != nil {
		return nil, err
	}
	if c.access, err = newAccess(s.Fetch); err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	c.throttle = newThrottle(s.Politeness, s.Fetch.Timeout.Std(), c.front)
	if c.render, err = newRenderer(s.Fetch); err != nil {
		return nil, err
	} else if c.render != nil {
		if err := c.render.startBrowser(s.Fetch, render.Options{Logger: log}); err != nil {
			return nil, err
		}
	}
	if s.Recrawl.Continuous {
		var seeds []string
		for _, seed := range s.Seeds {
			if u, err := c.canon.Canonicalize(nil, seed); err == nil {
				seeds = append(seeds, u.String())
			}
		}
		if c.refresh, err = newRefresher(s.Recrawl, seeds); err != nil {
			return nil, fmt.Errorf("crawler: %w", err)
		}
		if c.o.Cluster != nil && c.refresh != nil {
			if err := c.useClusterSchedule(); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// setDefaults fills in the defaults of the zero fields.
func (o *Options) setDefaults() {
	if o.Grace <= 0 {
		o.Grace = 10 * time.Second
	}
	if o.ParseBudget <= 0 {
		o.ParseBudget = 8 << 20
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = time.Second
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = time.Second
	}
}

// newFrontier builds the frontier over the store's queue, testing URLs
// against filter (frontierOptions).
func (c *Crawler) newFrontier(filter urlFilter) (*frontier.Frontier, error) {
	front, err := frontier.New(frontierOptions(c.settings, filter, c.o.Store, c.o.Window, c.o.MappedArrays))
	if err != nil {
		return nil, fmt.Errorf("crawler: %w", err)
	}
	return front, nil
}

// queueAdapter reads storage queue entries as frontier entries.
type queueAdapter struct{ s pageStore }

func (q queueAdapter) QueueScan(after uint64, limit int) ([]frontier.Entry, error) {
	batch, err := q.s.QueueScan(after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]frontier.Entry, len(batch))
	for i, e := range batch {
		out[i] = frontier.Entry{Seq: e.Seq, URL: e.URL, Depth: e.Depth, Referrer: e.Referrer, Hints: frontierHints(e.Hints)}
	}
	return out, nil
}

// frontierHints and storageHints convert a queue entry's hints between
// the store and the frontier (nil for none).
func frontierHints(h storage.Hints) *frontier.Hints {
	if h.IsZero() {
		return nil
	}
	return &frontier.Hints{Sitemap: h.Sitemap, Probe: h.Probe, LastMod: h.LastMod, NewsPublished: h.NewsPublished, NewsTitle: h.NewsTitle}
}

func storageHints(h *frontier.Hints) storage.Hints {
	if h == nil {
		return storage.Hints{}
	}
	return storage.Hints{Sitemap: h.Sitemap, Probe: h.Probe, LastMod: h.LastMod, NewsPublished: h.NewsPublished, NewsTitle: h.NewsTitle}
}

// newCollector builds the colly collector shared by all workers. Workers
// call Request synchronously; the frontier, not colly, decides what to
// fetch, so colly's visited set is off (AllowURLRevisit).
func (c *Crawler) newCollector(fetchCtx context.Context) *colly.Collector {
	cfg := c.settings
	col := colly.NewCollector(
		colly.AllowURLRevisit(),
		colly.UserAgent(cfg.Politeness.UserAgent),
		// One byte more than the limit: a body that reaches it was cut by
		// colly and is refused, not stored truncated.
		colly.MaxBodySize(int(cfg.Fetch.MaxBodyBytes+1)),
		colly.StdlibContext(fetchCtx),
	)
	// robots.txt is read by c.robotsTxt (fetchOnce), not colly
	col.IgnoreRobotsTxt = true
	conc := cfg.Politeness.Concurrency
	var rt http.RoundTripper = &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          4 * conc,
		MaxIdleConnsPerHost:   conc,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: time.Duration(cfg.Fetch.Timeout),
		ForceAttemptHTTP2:     true,
		TLSClientConfig:       c.access.tls,
	}
	if c.access.proxied() {
		// the recorder cannot tap proxied connections: WARC heads are
		// then rebuilt from what net/http kept (docs/warc.md)
		rt.(*http.Transport).Proxy = func(r *http.Request) (*url.URL, error) { return c.access.proxyFor(r.URL) }
	}
	if c.o.Archive != nil {
		rt = &archive.Recorder{Next: rt, Done: c.recorded}
	}
	// headers and basic auth per host, above the recorder: the WARC
	// request records show them (Authorization redacted)
	rt = &accessTransport{a: c.access, next: rt, observe: c.throttle.roundTrip}
	col.WithTransport(rt)
	ms, _ := c.o.Store.(metaStore)
	c.jar = newCookieJar(ms, c.log)
	col.SetCookieJar(c.jar)
	// robots.txt and sitemaps go through the same transport (archived too)
	c.client = &http.Client{Transport: rt, Timeout: time.Duration(cfg.Fetch.Timeout)}
	c.sitemapClient = &http.Client{Transport: rt, Timeout: time.Duration(cfg.Fetch.Timeout), CheckRedirect: c.checkSitemapRedirect}
	c.browserClient = &http.Client{Transport: rt, Timeout: time.Duration(cfg.Fetch.Timeout),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	c.agent = agentToken(cfg.Politeness.UserAgent)
	c.robotsTxt = newRobotsCache(c.client, cfg.Politeness.UserAgent, c.learnHost)
	col.SetRequestTimeout(time.Duration(cfg.Fetch.Timeout))
	col.SetRedirectHandler(func(req *http.Request, via []*http.Request) error {
		if err := c.checkRedirect(req, via); err != nil {
			return redirectError{err}
		}
		return nil
	})

	col.OnRequest(func(r *colly.Request) {
		j := r.Ctx.GetAny("job").(*job)
		j.key = r.URL.String()
		c.jobs.Store(j.key, j)
	})
	col.OnResponseHeaders(func(r *colly.Response) {
		j := r.Ctx.GetAny("job").(*job)
		j.status = r.StatusCode
		j.contentType = r.Headers.Get("Content-Type")
		if r.StatusCode >= 200 && r.StatusCode < 300 && j.contentType != "" && !c.allowedType(j.contentType) {
			j.nonHTML = true
			r.Request.Abort() // do not download what we will not parse
		}
		if n := r.Headers.Get("Content-Length"); n != "" && cfg.Fetch.MaxBodyBytes > 0 {
			var size int64
			if _, err := fmt.Sscan(n, &size); err == nil && size > cfg.Fetch.MaxBodyBytes {
				j.tooLarge = size
				r.Request.Abort()
			}
		}
	})
	col.OnResponse(func(r *colly.Response) {
		j := r.Ctx.GetAny("job").(*job)
		j.validators = storage.Validators{ETag: r.Headers.Get("ETag"), LastModified: r.Headers.Get("Last-Modified")}
		j.robotsTag = r.Headers.Values("X-Robots-Tag")
		j.linkHeader = r.Headers.Values("Link")
		j.status = r.StatusCode
		j.contentType = r.Headers.Get("Content-Type")
		j.body = r.Body
		j.final = r.Request.URL
		if cfg.Fetch.MaxBodyBytes > 0 && int64(len(r.Body)) > cfg.Fetch.MaxBodyBytes {
			j.tooLarge, j.body = -1, nil // read past the limit: colly cut it
		}
		// colly converts the body to UTF-8 when the header declares
		// another charset (and fails the request when it cannot).
		cs := declaredCharset(j.contentType)
		j.collyDecoded = cs != "" && cs != "utf-8" && cs != "utf8"
	})
	col.OnError(func(r *colly.Response, err error) {
		j := r.Ctx.GetAny("job").(*job)
		if r.StatusCode != 0 {
			j.status = r.StatusCode
		}
		if r.Headers != nil {
			j.retryAfter, j.hasRetryAfter = retryAfter(r.Headers.Get("Retry-After"))
		}
		j.err = err
	})
	return col
}

// job carries one fetch's outcome out of colly's callbacks.
type job struct {
	key           string
	status        int
	contentType   string
	body          []byte
	final         *url.URL
	chain         []*url.URL // canonical redirect targets, in order
	collyDecoded  bool       // colly converted body to UTF-8 from the declared charset: Extract must not decode it again
	nonHTML       bool
	tooLarge      int64         // Content-Length over fetch.max_body_bytes; -1: read past it
	retryAfter    time.Duration // the response's Retry-After, if hasRetryAfter
	hasRetryAfter bool
	abandoned     bool     // a retry given up because the crawl is stopping
	robotsTag     []string // X-Robots-Tag header values
	linkHeader    []string // Link header values (a rel=canonical there)
	err           error
	exchanges     []*archive.Exchange // with Options.Archive: what the transport saw, in order
	refresh       bool                // a scheduled refresh (recrawl) of a URL fetched before
	prev          *storage.URLRecord  // with refresh: the URL's stored record (nil: none)
	validators    storage.Validators  // the response's ETag and Last-Modified
	entry         frontier.Entry      // the queue entry fetched (Hop moves it between hosts)
	// A redirect stopped before its target was requested (checkRedirect):
	// target's stored record when it was fetched already (mapped), or the
	// target robots.txt disallows (blocked); hopStatus is the status of
	// the redirect that named it.
	mapped    *storage.URLRecord
	blocked   *url.URL
	hopStatus int
}

// recorded receives an exchange from the archive.Recorder (on the goroutine
// that made the request): a job's goes with the job; others (robots.txt)
// are written at once.
func (c *Crawler) recorded(origin *http.Request, ex *archive.Exchange) {
	if v, ok := c.jobs.Load(origin.URL.String()); ok {
		j := v.(*job)
		j.exchanges = append(j.exchanges, ex)
		return
	}
	c.archiveLoose([]*archive.Exchange{ex})
}

// archiveLoose writes exchanges that no page verdict goes with; the first
// error is kept and stops the crawl at the next process.
func (c *Crawler) archiveLoose(exs []*archive.Exchange) {
	if len(exs) == 0 {
		return
	}
	if err := c.o.Archive.Write(context.Background(), archive.Fetch{Exchanges: exs}); err != nil {
		err = fmt.Errorf("crawler: archive %s: %w", exs[0].URL, err)
		c.archiveErr.CompareAndSwap(nil, &err)
	}
}

// checkRedirect is the HTTP client's redirect policy for pages. A
// redirect target goes through the checks of a discovered link before it
// is requested (redirectTarget): the hop count (fetch.max_redirects) and
// loops, canonicalization and scope; then, unless the fetch is a refresh,
// the store: a target already recorded with a document is not requested
// again, the fetch stops and its URL maps to that document
// (errRedirectMapped); then enterHost: robots.txt of the target's host,
// read first if not known (a disallowed target is not requested:
// errRedirectBlocked; an unreachable robots.txt makes the entry wait, as
// for its own host), and the target host's politeness. The chain is
// recorded so every URL of it maps to one document.
func (c *Crawler) checkRedirect(req *http.Request, via []*http.Request) error {
	u, err := c.redirectTarget(req, via)
	if err != nil {
		return err
	}
	v, ok := c.jobs.Load(via[0].URL.String())
	if !ok {
		return nil // not a crawl fetch
	}
	j := v.(*job)
	if req.Response != nil {
		j.hopStatus = req.Response.StatusCode
	}
	if j.prev == nil {
		// (a refresh requests the target again: aliases are not refreshed
		// on their own)
		rec, err := c.o.Store.URLRecord(u.String())
		switch {
		case err == nil && rec.DocID != 0:
			j.chain = append(j.chain, u)
			j.mapped = &rec
			return errRedirectMapped
		case err != nil && !errors.Is(err, storage.ErrNotFound):
			return fmt.Errorf("crawler: redirect to %s: %w", u, err)
		}
	}
	if err := c.enterHost(req.Context(), j.entry, u); errors.Is(err, colly.ErrRobotsTxtBlocked) {
		j.blocked = u
		return errRedirectBlocked
	} else if err != nil {
		return err
	}
	j.chain = append(j.chain, u)
	return nil
}

// redirectTarget returns the canonical URL of a redirect's target, or
// why it is not followed: more than fetch.max_redirects redirects, a
// loop, a URL that does not canonicalize or is out of scope.
func (c *Crawler) redirectTarget(req *http.Request, via []*http.Request) (*url.URL, error) {
	if len(via) > c.settings.Fetch.MaxRedirects {
		return nil, fmt.Errorf("crawler: more than %d redirects (fetch.max_redirects)", c.settings.Fetch.MaxRedirects)
	}
	for _, v := range via {
		if v.URL.String() == req.URL.String() {
			return nil, fmt.Errorf("crawler: redirect loop back to %s after %d redirects", req.URL, len(via))
		}
	}
	u, err := c.canon.Canonicalize(nil, req.URL.String())
	if err != nil {
		return nil, fmt.Errorf("crawler: redirect to %q: %w", req.URL, err)
	}
	if err := c.scope.Check(u); err != nil {
		return nil, fmt.Errorf("crawler: redirect to %s: %w", u, err)
	}
	return u, nil
}

// enterHost readies entry e's next request, to target u (a redirect):
// with politeness.obey_robots, robots.txt of u's host must allow it (read
// first if not known: colly.ErrRobotsTxtBlocked when it does not, a
// *robotsUnreachable while it cannot be read); then e hops to u's host in
// the queue (urlQueue.hop), waiting for its delay, Crawl-delay and
// parallelism like any URL of that host. Other errors are ctx's.
func (c *Crawler) enterHost(ctx context.Context, e frontier.Entry, u *url.URL) error {
	if c.settings.Politeness.ObeyRobots {
		if err := c.robotsAllow(ctx, u.String()); err != nil {
			return fmt.Errorf("crawler: redirect to %s: %w", u, err)
		}
	}
	if err := c.queue.hop(ctx, e, u.Host); err != nil {
		return fmt.Errorf("crawler: redirect to %s: %w", u, err)
	}
	return nil
}

// checkSitemapRedirect is the redirect policy of sitemap fetches: a
// sitemap's redirect target goes through redirectTarget and enterHost
// (its entry travels in the request's context: withEntry).
func (c *Crawler) checkSitemapRedirect(req *http.Request, via []*http.Request) error {
	u, err := c.redirectTarget(req, via)
	if err != nil {
		return err
	}
	e, ok := req.Context().Value(entryKey{}).(frontier.Entry)
	if !ok {
		return nil
	}
	return c.enterHost(req.Context(), e, u)
}

// entryKey is the context key of the queue entry a sitemap request is for.
type entryKey struct{}

// checkRedirect's answers for a target that is not requested: it was
// fetched already (job.mapped), or robots.txt disallows it (job.blocked).
var (
	errRedirectMapped  = errors.New("crawler: redirect target already fetched")
	errRedirectBlocked = fmt.Errorf("crawler: redirect target %w", colly.ErrRobotsTxtBlocked)
)

func (c *Crawler) allowedType(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return slices.Contains(c.types, strings.ToLower(mt))
}

// fetch requests e's URL, trying again up to fetch.retries times after a
// transient failure (see retryable). It stops retrying when ctx (the
// crawl: Ctrl-C or a fatal error) ends and then marks the job abandoned,
// so that the URL stays queued instead of being recorded as failed.
//
// prev, for a refresh, is the URL's stored record: its validators make the
// request conditional.
func (c *Crawler) fetch(ctx, fetchCtx context.Context, e frontier.Entry, prev *storage.URLRecord) *job {
	for attempt := 0; ; attempt++ {
		if err := c.throttle.down(hostOf(e.URL)); err != nil {
			return &job{entry: e, prev: prev, err: err}
		}
		j := c.fetchOnce(fetchCtx, e, prev)
		if attempt >= c.settings.Fetch.Retries || !retryable(j) {
			return j
		}
		// The backoff, or the server's Retry-After, but never sooner than
		// the host's politeness delay and never longer than maxRetryWait.
		wait := c.o.RetryBackoff << attempt
		if j.hasRetryAfter {
			wait = j.retryAfter
		}
		wait = min(max(wait, c.front.HostDelay(hostOf(e.URL))), maxRetryWait)
		if c.o.Archive != nil {
			c.archiveLoose(j.exchanges) // the failed try, as the server answered it
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			j.abandoned = true
			return j
		case <-t.C:
		}
		if len(j.chain) > 0 {
			// the try followed redirects to other hosts: the retry is a
			// request to e's own host again, under its politeness
			if err := c.queue.hop(fetchCtx, e, hostOf(e.URL)); err != nil {
				j.abandoned = true
				return j
			}
		}
		c.log.Debug("retrying", "url", e.URL, "status", j.status, "err", j.err, "waited", wait)
		c.retries.Add(1)
	}
}

// redirectError is a redirect the crawl refused (checkRedirect).
type redirectError struct{ error }

func (e redirectError) Unwrap() error { return e.error }

// maxRetryWait caps the wait before a retry (Retry-After included).
const maxRetryWait = 60 * time.Second

// retryable reports whether a failed fetch may succeed if tried again: a
// transient network error (see transient) or a 408, 429, 500, 502, 503 or
// 504 response. (Go's transport itself retries a request once when a reused
// keep-alive connection turns out closed.)
func retryable(j *job) bool {
	if j.err == nil || j.nonHTML || j.tooLarge != 0 {
		return false
	}
	switch j.status {
	case 0, http.StatusOK: // no response, or a body cut off
		return transient(j.err)
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// transient reports whether err is a network failure that may not happen
// again: a timeout, a refused or reset connection, a connection or body cut
// off. Final: an unknown host, TLS and certificate errors, refused
// redirects, robots.txt, colly's own refusals, an undecodable charset.
func transient(err error) bool {
	if errors.As(err, new(redirectError)) {
		return false
	}
	if pe := (*proxyError)(nil); errors.As(err, &pe) {
		// the proxy failed: tried again, unless it refused our
		// credentials or TLS failed
		var cert *tls.CertificateVerificationError
		return !pe.refused && !errors.As(err, &cert)
	}
	var ue *url.Error // implements net.Error itself: look inside
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return !dns.IsNotFound
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, context.DeadlineExceeded):
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// retryAfter parses a Retry-After header: seconds, or an HTTP date. ok is
// false if it is absent or unparseable.
func retryAfter(v string) (d time.Duration, ok bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

func (c *Crawler) fetchOnce(fetchCtx context.Context, e frontier.Entry, prev *storage.URLRecord) *job {
	j := &job{prev: prev, entry: e}
	if c.settings.Politeness.ObeyRobots {
		if err := c.robotsAllow(fetchCtx, e.URL); err != nil {
			j.err = err
			j.abandoned = c.robotsWait(e, err) // robots.txt unreachable: e waits
			return j
		}
	}
	ctx := colly.NewContext()
	ctx.Put("job", j)
	var hdr http.Header
	if p := prev; p != nil && p.Validators != (storage.Validators{}) {
		// a refresh: a conditional GET with the last response's validators
		hdr = http.Header{}
		if p.Validators.ETag != "" {
			hdr.Set("If-None-Match", p.Validators.ETag)
		}
		if p.Validators.LastModified != "" {
			hdr.Set("If-Modified-Since", p.Validators.LastModified)
		}
	}
	err := c.col.Request("GET", e.URL, nil, ctx, hdr)
	if j.key != "" {
		c.jobs.Delete(j.key)
	}
	if err != nil && j.err == nil {
		j.err = err
	}
	switch {
	case j.mapped != nil:
		j.err, j.status = nil, j.hopStatus
	case j.blocked != nil:
		j.status = j.hopStatus
	case j.err != nil:
		// a redirect to a host whose robots.txt is unreachable: e waits
		j.abandoned = c.robotsWait(e, j.err)
	}
	return j
}

// Run crawls until the queue is empty (never, with recrawl.continuous) or
// ctx is cancelled, and returns the
// final counters. On cancellation it stops taking URLs, lets in-flight pages
// finish for up to Options.Grace (unfinished ones stay queued for the next
// run), and returns ctx.Err() with the counters. A store error (a full
// disk: storage.ErrNoSpace) stops the crawl at once, aborting the fetches
// in flight, which stay queued, and is returned.
func (c *Crawler) Run(ctx context.Context) (Stats, error) {
	c.start = time.Now()
	defer c.ctl.state.Store(StateFinished)
	ctx, err := c.bindControl(ctx)
	if err != nil {
		return c.Stats(), err
	}
	fetchCtx, cancelFetch := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelFetch()
	c.col = c.newCollector(fetchCtx)
	if c.render != nil {
		defer c.render.br.Close()
	}

	if err := c.restore(ctx); err != nil {
		return c.Stats(), err
	}
	if err := c.docs.start(ctx); err != nil {
		return c.Stats(), err
	}
	if err := c.startAccess(ctx); err != nil {
		return c.Stats(), err
	}
	c.filter.start()
	if err := c.queueSeeds(ctx); err != nil {
		return c.Stats(), err
	}
	c.log.Info("crawl started", "seeds", len(c.settings.Seeds), "queued", c.queued.Load(),
		"resumed_urls", c.resumedURLs, "concurrency", c.settings.Politeness.Concurrency)
	c.ctl.state.Store(StateRunning)
	if c.o.Started != nil {
		c.o.Started()
	}

	// Workers stop on crawlCtx (the caller's ctx, or a fatal error). When the
	// caller cancels, in-flight fetches get Grace before fetchCtx aborts them.
	g, crawlCtx := errgroup.WithContext(ctx)
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.NewTimer(c.o.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancelFetch()
		case <-fetchCtx.Done():
		}
	})
	defer stopGrace()
	// A fatal error (a commit that failed for good: the disk is full, say)
	// aborts the fetches in flight at once: their results could not be
	// stored either, and they stay queued.
	stopOnError := context.AfterFunc(crawlCtx, func() {
		if ctx.Err() == nil {
			cancelFetch()
		}
	})
	defer stopOnError()
	g.Go(func() error { return c.queue.run(crawlCtx) })
	for range max(c.workers, c.settings.Politeness.Concurrency) {
		g.Go(func() error { return c.work(crawlCtx, fetchCtx) })
	}
	if c.refresh != nil {
		g.Go(func() error { return c.runRefresher(crawlCtx) })
	}
	if c.sched != nil {
		g.Go(func() error { return c.sched.run(crawlCtx) })
	}
	progressDone := make(chan struct{})
	var progressWG sync.WaitGroup
	if c.o.Progress != nil {
		progressWG.Add(1)
		go func() {
			defer progressWG.Done()
			t := time.NewTicker(c.o.ProgressEvery)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					c.o.Progress(c.Stats())
				case <-progressDone:
					return
				}
			}
		}()
	}
	err = g.Wait()
	cancelFetch()
	close(progressDone)
	progressWG.Wait()
	c.front.Close()
	// The summary counts the queue left even after Ctrl-C cancelled ctx.
	if n, qerr := c.o.Store.QueueLen(context.WithoutCancel(ctx)); qerr == nil {
		c.queued.Store(int64(n))
	} else if err == nil {
		err = fmt.Errorf("crawler: count queue: %w", qerr)
	}
	st := c.Stats()
	if c.o.Progress != nil {
		c.o.Progress(st)
	}
	if err == nil {
		err = ctx.Err()
	}
	c.log.Info("crawl finished", "fetched", st.Fetched, "stored", st.Stored, "duplicates", st.Duplicates,
		"errors", st.Errors, "queued_left", st.Queued, "seconds", st.Seconds)
	return st, err
}

// Stats returns the counters so far; safe to call during Run.
func (c *Crawler) Stats() Stats {
	el := time.Since(c.start)
	s := c.counters.stats()
	s.ResumedURLs, s.ResumedQueue = c.resumedURLs, c.resumedQueue
	s.DiscoveryDelayMedian, s.DiscoveryDelayP99 = c.discovery.quantile(0.5).Seconds(), c.discovery.quantile(0.99).Seconds()
	s.Elapsed, s.Seconds = el, el.Seconds()
	if c.refresh != nil {
		s.RefreshScheduled, s.RefreshDue = c.refresh.counts(time.Now())
	}
	c.filter.report(&s)
	c.renderReport(&s)
	if el > 0 {
		s.PagesPerSecond = float64(c.done.Load()) / el.Seconds()
	}
	c.queue.report(&s)
	c.throttle.report(&s)
	if r, ok := c.docs.(interface{ report(*Stats) }); ok {
		r.report(&s)
	}
	return s
}
