package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/render"
)

// Rendering (fetch.render) happens after colly's response, not instead of
// it: colly fetches the page as for any other (politeness, robots.txt,
// redirects, retries, archiving, the charset), the server's HTML is
// parsed, the render.Decider decides from it, and only then does a tab
// open, whose request for the page is answered with that same HTML: the
// page is never fetched twice and a plain page costs nothing more than the
// check. The page's other requests (scripts, fetch()/XHR) are made by the
// crawler's own transport (browserFetch): in scope, allowed by
// robots.txt, one at a time under the host's politeness, archived with
// --warc.

// renderer is a crawl's rendering: the decisions, the browser, counters.
type renderer struct {
	dec *render.Decider
	br  *render.Browser

	rendered, failed, requests, refused, timedOut atomic.Int64
	elapsed                                       atomic.Int64 // nanoseconds spent rendering
}

// newRenderer returns the crawl's renderer, or nil when fetch.render and
// its rules render nothing; the error of a missing browser names the
// Debian package.
func newRenderer(f configs.Fetch) (*renderer, error) {
	mode, err := render.ParseMode(f.Render)
	if err != nil {
		return nil, fmt.Errorf("crawler: fetch.render: %w", err)
	}
	var rules []render.Rule
	for i, r := range f.RenderRules {
		re, err := regexp.Compile(r.Match)
		if err != nil {
			return nil, fmt.Errorf("crawler: fetch.render_rules[%d].match: %w", i, err)
		}
		m, err := render.ParseMode(r.Render)
		if err != nil {
			return nil, fmt.Errorf("crawler: fetch.render_rules[%d].render: %w", i, err)
		}
		rules = append(rules, render.Rule{Match: re, Mode: m})
	}
	dec := render.NewDecider(mode, rules, 0, 0)
	if !dec.Active() {
		return nil, nil
	}
	return &renderer{dec: dec}, nil
}

// startBrowser makes the renderer's browser (started on its first page).
func (r *renderer) startBrowser(f configs.Fetch, o render.Options) error {
	o.BrowserPath, o.Tabs, o.Timeout, o.Scroll, o.LoadMedia = f.BrowserPath, f.RenderConcurrency, time.Duration(f.RenderTimeout), f.RenderScroll, f.RenderMedia
	o.MaxBodyBytes = f.MaxBodyBytes
	br, err := render.New(o)
	if err != nil {
		return fmt.Errorf("crawler: fetch.render: %w", err)
	}
	r.br = br
	return nil
}

// RenderStats are the rendering counters (fetch.render other than never).
type RenderStats struct {
	render.Counts
	Failed   int64 `json:"failed"`    // renders that failed (twice): the page recorded as an error
	TimedOut int64 `json:"timed_out"` // pages still busy at fetch.render_timeout (taken as they were)
	Requests int64 `json:"requests"`  // the browser's requests answered (made by the crawler)
	Refused  int64 `json:"refused"`   // the browser's requests refused (out of scope, robots.txt)
	// Seconds is the wall time spent rendering, all tabs together.
	Seconds float64      `json:"seconds"`
	Browser render.Stats `json:"browser"`
}

// renderReport adds the rendering counters to s.
func (c *Crawler) renderReport(s *Stats) {
	r := c.render
	if r == nil {
		return
	}
	rs := &RenderStats{Counts: r.dec.Counts(), Failed: r.failed.Load(), TimedOut: r.timedOut.Load(),
		Requests: r.requests.Load(), Refused: r.refused.Load(), Seconds: time.Duration(r.elapsed.Load()).Seconds()}
	if r.br != nil {
		rs.Browser = r.br.Stats()
	}
	s.Render = rs
}

// renderPage renders the page doc (parsed from j's body, served from
// final for entry e) when the renderer decides so, and returns the page
// to read: the rendered one (its links those of the rendered DOM and the
// routes the page pushed, its server HTML kept), or doc. It returns
// errStopping when the crawl stopped meanwhile, or the render's error.
func (c *Crawler) renderPage(fetchCtx context.Context, e frontier.Entry, doc *Document, final *url.URL) (*Document, error) {
	r := c.render
	host := hostOf(e.URL)
	dec := r.dec.Decide(e.URL, host, func() render.Clue {
		if doc.root == nil {
			return render.Detect(doc.HTML)
		}
		return render.DetectNode(doc.root, len(doc.HTML))
	})
	if !dec.Render {
		return doc, nil
	}
	res, err := r.br.Render(fetchCtx, render.Page{URL: final.String(), HTML: doc.HTML,
		ContentType: "text/html; charset=utf-8", Fetch: c.browserFetch(fetchCtx, e)})
	if err != nil {
		if fetchCtx.Err() != nil {
			return nil, errStopping
		}
		r.failed.Add(1)
		return nil, err
	}
	r.rendered.Add(1)
	r.elapsed.Add(int64(res.Elapsed))
	if res.TimedOut {
		r.timedOut.Add(1)
	}
	rdoc, err := Extract(res.HTML, "text/html; charset=utf-8", true, final)
	if err != nil {
		return nil, err
	}
	rdoc.Links = append(rdoc.Links, res.Routes...)
	rdoc.serverHTML = doc.HTML
	// a render cut off by its budget that gained nothing says nothing
	// about the host (a loaded machine, a slow page): it is not counted
	// toward settling the host to render none
	if gained := renderGained(doc, rdoc); dec.Observe && (gained || !res.TimedOut) {
		r.dec.Observe(host, gained)
	}
	c.log.Debug("rendered", "url", e.URL, "reason", dec.Reason, "ms", res.Elapsed.Milliseconds(),
		"requests", res.Requests, "routes", len(res.Routes), "text", len(rdoc.Text), "server_text", len(doc.Text))
	return rdoc, nil
}

// renderGained reports whether the rendered page holds more than the
// server's: a fifth more text (and 100 bytes), or a link the server's
// HTML lacks.
func renderGained(server, rendered *Document) bool {
	if len(rendered.Text) > len(server.Text)+len(server.Text)/5+100 {
		return true
	}
	have := make(map[string]bool, len(server.Links))
	for _, l := range server.Links {
		have[l] = true
	}
	for _, l := range rendered.Links {
		if !have[l] {
			return true
		}
	}
	return false
}

// errRefused is the answer to a browser request the crawl does not make.
var errRefused = errors.New("crawler: browser request refused")

// browserFetch returns the function that makes the requests of e's page
// in the browser: each one in scope (scope.*), allowed by robots.txt
// (politeness.obey_robots), sent one at a time, each after the host's
// politeness lets e send it a request (urlQueue.hop: its delay,
// Crawl-delay and parallelism, as a redirect's), with the crawl's user
// agent, through the crawl's transport (archived with --warc), redirects
// handed back to the browser.
func (c *Crawler) browserFetch(ctx context.Context, e frontier.Entry) func(*http.Request) (*http.Response, error) {
	var mu sync.Mutex
	return func(req *http.Request) (*http.Response, error) {
		r := c.render
		u, err := c.canon.Canonicalize(nil, req.URL.String())
		if err == nil {
			err = c.scope.Check(u)
		}
		if err == nil && c.settings.Politeness.ObeyRobots {
			err = c.robotsAllow(ctx, req.URL.String())
		}
		if err != nil {
			r.refused.Add(1)
			return nil, fmt.Errorf("%w: %s: %v", errRefused, req.URL, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if err := c.queue.hop(req.Context(), e, req.URL.Host); err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", c.settings.Politeness.UserAgent)
		r.requests.Add(1)
		return c.browserClient.Do(req)
	}
}

// renderCollector exports the rendering counters (fetch.render other than
// never): pages rendered by reason, failed renders, flagged pages skipped
// by their host's learning, the browser's requests and restarts.
type renderCollector struct {
	c                                        *Crawler
	rendered, failed, skipped, reqs, restart *prometheus.Desc
}

func newRenderCollector(c *Crawler) *renderCollector {
	return &renderCollector{c: c,
		rendered: prometheus.NewDesc("bloomcrawl_crawl_rendered_total",
			"Pages rendered in the browser (fetch.render), by why: always, rule, host (the host's pages all needed it), or the clue the check found.",
			[]string{"reason"}, nil),
		failed: prometheus.NewDesc("bloomcrawl_crawl_render_failed_total",
			"Renders that failed twice (the page recorded as an error).", nil, nil),
		skipped: prometheus.NewDesc("bloomcrawl_crawl_render_skipped_total",
			"Pages the check flagged that were not rendered: renders of their host gained nothing.", nil, nil),
		reqs: prometheus.NewDesc("bloomcrawl_crawl_render_requests_total",
			"Requests of rendered pages made by the crawler for the browser.", nil, nil),
		restart: prometheus.NewDesc("bloomcrawl_crawl_browser_restarts_total",
			"Browser restarts after a crash or a hang.", nil, nil)}
}

func (r *renderCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- r.rendered
	ch <- r.failed
	ch <- r.skipped
	ch <- r.reqs
	ch <- r.restart
}

func (r *renderCollector) Collect(ch chan<- prometheus.Metric) {
	s := r.c.Stats().Render
	if s == nil {
		return
	}
	for reason, n := range s.Reasons {
		ch <- prometheus.MustNewConstMetric(r.rendered, prometheus.CounterValue, float64(n), reason)
	}
	ch <- prometheus.MustNewConstMetric(r.failed, prometheus.CounterValue, float64(s.Failed))
	ch <- prometheus.MustNewConstMetric(r.skipped, prometheus.CounterValue, float64(s.Skipped))
	ch <- prometheus.MustNewConstMetric(r.reqs, prometheus.CounterValue, float64(s.Requests))
	ch <- prometheus.MustNewConstMetric(r.restart, prometheus.CounterValue, float64(s.Browser.Restarts))
}
