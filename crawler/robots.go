package crawler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/temoto/robotstxt"
)

// robotsAllow returns nil when robots.txt lets us fetch rawURL,
// colly.ErrRobotsTxtBlocked when it does not, or the error that kept
// robots.txt from being read.
func (c *Crawler) robotsAllow(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	data, err := c.robotsTxt.get(ctx, u)
	if err != nil {
		return err
	}
	if !c.robotsTxt.allowed(data, u) {
		return colly.ErrRobotsTxtBlocked
	}
	return nil
}

// learnHost applies what a host's robots.txt asks (data nil: it could not
// be read): its Crawl-delay, when robots.txt is obeyed and
// politeness.max_crawl_delay is not 0, capped by it, becomes the host's
// delay if longer than politeness.delay. Either way the frontier learns
// that the host's delay is known (HoldNewHosts).
func (c *Crawler) learnHost(u *url.URL, data *robotstxt.RobotsData) {
	var d time.Duration
	if c.cfg.Politeness.ObeyRobots && c.cfg.Politeness.MaxCrawlDelay > 0 {
		d = c.robotsTxt.crawlDelay(data)
		if limit := c.cfg.Politeness.MaxCrawlDelay.Std(); d > limit {
			c.log.Warn("robots.txt Crawl-delay above politeness.max_crawl_delay; using the cap", "host", u.Host, "crawl_delay", d, "max_crawl_delay", limit)
			d = limit
		}
		if d > c.cfg.Politeness.Delay.Std() {
			c.log.Info("robots.txt Crawl-delay", "host", u.Host, "delay", d)
		}
	}
	c.front.SetHostDelay(u.Host, d)
}

// hostOf returns the host[:port] of an absolute URL ("" if it has none).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// maxRobotsBytes is the part of a robots.txt that is read (Google reads
// 500 KiB).
const maxRobotsBytes = 512 << 10

// robotsCache fetches each host's robots.txt once (concurrent callers for
// one host wait for the same fetch) and keeps it for the crawl. A fetch
// that fails without a response is not kept: the next caller tries again.
// The crawler does this itself rather than through colly, so that it can
// read Crawl-delay and Sitemap: lines, which colly does not expose.
type robotsCache struct {
	client *http.Client
	agent  string
	// learnt is called once per host (scheme://host:port) when its
	// robots.txt has been read, with nil data after a failed fetch.
	learnt func(u *url.URL, data *robotstxt.RobotsData)

	mu    sync.Mutex
	hosts map[string]*robotsEntry
}

type robotsEntry struct {
	ready chan struct{}
	data  *robotstxt.RobotsData
	err   error
}

func newRobotsCache(client *http.Client, agent string, learnt func(*url.URL, *robotstxt.RobotsData)) *robotsCache {
	return &robotsCache{client: client, agent: agent, learnt: learnt, hosts: map[string]*robotsEntry{}}
}

// get returns the robots.txt of u's host, fetching it on first use. Like
// colly (and Google): a 4xx means no rules; a 5xx disallows everything.
func (rc *robotsCache) get(ctx context.Context, u *url.URL) (*robotstxt.RobotsData, error) {
	key := u.Scheme + "://" + u.Host
	rc.mu.Lock()
	e := rc.hosts[key]
	if e == nil {
		e = &robotsEntry{ready: make(chan struct{})}
		rc.hosts[key] = e
		rc.mu.Unlock()
		e.data, e.err = rc.fetch(ctx, key)
		if e.err != nil {
			rc.mu.Lock()
			delete(rc.hosts, key) // try again next time
			rc.mu.Unlock()
		}
		if rc.learnt != nil {
			rc.learnt(u, e.data)
		}
		close(e.ready)
		return e.data, e.err
	}
	rc.mu.Unlock()
	select {
	case <-e.ready:
		return e.data, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (rc *robotsCache) fetch(ctx context.Context, origin string) (*robotstxt.RobotsData, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", rc.agent)
	resp, err := rc.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("robots.txt: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes))
	if err != nil {
		return nil, fmt.Errorf("robots.txt: %w", err)
	}
	data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body)
	if err != nil {
		return nil, fmt.Errorf("robots.txt: %w", err)
	}
	return data, nil
}

// allowed reports whether robots.txt lets our agent fetch u (tested as
// colly tests it: escaped path and the query re-encoded).
func (rc *robotsCache) allowed(data *robotstxt.RobotsData, u *url.URL) bool {
	g := data.FindGroup(rc.agent)
	if g == nil {
		return true
	}
	p := u.EscapedPath()
	if u.RawQuery != "" {
		p += "?" + u.Query().Encode()
	}
	return g.Test(p)
}

// crawlDelay returns the Crawl-delay robots.txt asks of our agent (its own
// group, else *), 0 if none.
func (rc *robotsCache) crawlDelay(data *robotstxt.RobotsData) time.Duration {
	if data == nil {
		return 0
	}
	if g := data.FindGroup(rc.agent); g != nil {
		return g.CrawlDelay
	}
	return 0
}

// agentToken is the product token of a User-Agent string, lowercased
// ("bloomcrawl" for "bloomcrawl/0.1 (+https://...)"): the name robots.txt
// groups, robots meta tags and X-Robots-Tag values address us by.
func agentToken(ua string) string {
	tok, _, _ := strings.Cut(strings.TrimSpace(ua), "/")
	tok, _, _ = strings.Cut(tok, " ")
	return strings.ToLower(tok)
}
