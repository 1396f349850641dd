package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"
	whatwg "github.com/nlnwa/whatwg-url/url"

	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/robots"
)

// robotsAllow returns nil when robots.txt lets us fetch rawURL,
// colly.ErrRobotsTxtBlocked when it does not, a *robotsUnreachable while
// the host's robots.txt cannot be read (complete disallow, RFC 9309
// §2.3.1.4), or ctx's error. The rules are tested on the request target
// exactly as colly will send it (requestTarget).
func (c *Crawler) robotsAllow(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	rules, err := c.robotsTxt.get(ctx, u)
	if err != nil {
		return err
	}
	target, err := requestTarget(rawURL)
	if err != nil {
		return err
	}
	if !rules.Allowed(c.agent, target) {
		return colly.ErrRobotsTxtBlocked
	}
	return nil
}

// collyURLs parses URLs as colly does before a request.
var collyURLs = whatwg.NewParser(whatwg.WithPercentEncodeSinglePercentSign())

// requestTarget returns the path and query the request for rawURL will
// send: the URL parsed as colly parses it (WHATWG), then as net/http does,
// then url.URL.RequestURI, which is what goes on the request line.
func requestTarget(rawURL string) (string, error) {
	w, err := collyURLs.Parse(rawURL)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(w.Href(false))
	if err != nil {
		return "", err
	}
	if u, err = url.Parse(u.String()); err != nil {
		return "", err
	}
	return u.RequestURI(), nil
}

// robotsWait makes entry e wait when err says its host's robots.txt is
// unreachable, and reports whether it did (then e is neither fetched nor
// recorded, and the caller leaves it as an abandoned fetch: Done). While
// retries remain, e goes back to the frontier, which holds the whole host
// until the next robots.txt retry (frontier.Defer). After the last retry,
// or in cluster mode (the cluster hands the task out again), e stays
// queued in the store, for the next run.
func (c *Crawler) robotsWait(e frontier.Entry, err error) bool {
	var ru *robotsUnreachable
	if !errors.As(err, &ru) {
		return false
	}
	if ru.fetched {
		if ru.gaveUp {
			c.log.Warn("robots.txt unreachable, retries exhausted; the host's URLs stay queued for the next run",
				"host", ru.host, "cause", ru.cause, "next_try", ru.retryAt)
		} else {
			c.log.Warn("robots.txt unreachable; host paused until a retry reads it", "host", ru.host, "cause", ru.cause,
				"retry_in", time.Until(ru.retryAt).Round(time.Millisecond))
		}
	}
	if !ru.gaveUp {
		c.queue.wait(e, ru.retryAt)
	}
	return true
}

// learnHost applies what a host's robots.txt asks: its Crawl-delay, when
// robots.txt is obeyed and politeness.max_crawl_delay is not 0, capped by
// it, becomes the host's delay if longer than politeness.delay. Either way
// the frontier learns that the host's delay is known (HoldNewHosts), and
// the host's sitemaps are queued (hostSitemaps).
func (c *Crawler) learnHost(ctx context.Context, u *url.URL, rules *robots.Rules) {
	defer c.hostSitemaps(ctx, u, rules)
	var d time.Duration
	if c.settings.Politeness.ObeyRobots && c.settings.Politeness.MaxCrawlDelay > 0 {
		d, _ = rules.CrawlDelay(c.agent)
		if limit := c.settings.Politeness.MaxCrawlDelay.Std(); d > limit {
			c.log.Warn("robots.txt Crawl-delay above politeness.max_crawl_delay; using the cap", "host", u.Host, "crawl_delay", d, "max_crawl_delay", limit)
			d = limit
		}
		if d > c.settings.Politeness.Delay.Std() {
			c.log.Info("robots.txt Crawl-delay", "host", u.Host, "delay", d)
		}
	}
	c.throttle.setFloor(u.Host, d)
}

// hostOf returns the host[:port] of an absolute URL ("" if it has none).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// Fetching robots.txt (RFC 9309 §2.3.1). Variables for the tests.
var (
	// robotsTTL is how long a robots.txt is used before it is read again
	// (§2.4: at most 24 hours), so a continuous crawl follows its changes.
	robotsTTL = 24 * time.Hour
	// robotsRetries is how many times an unreachable robots.txt is tried
	// again, robotsBackoff after the first failure, doubling up to
	// robotsMaxBackoff (1 s, 2 s … 512 s: about 17 minutes in all); after
	// the last, the host is left until the entry expires (robotsTTL), its
	// URLs queued for the next run.
	robotsRetries    = 10
	robotsBackoff    = time.Second
	robotsMaxBackoff = 10 * time.Minute
)

// robotsRedirects is how many redirects are followed (§2.3.1.2: at least
// five); a robots.txt still redirecting after them is unavailable.
const robotsRedirects = 5

// robotsUnreachable is robotsAllow's answer while a host's robots.txt
// cannot be read (a 5xx or 429, a timeout, a network error): nothing may be
// fetched from it (§2.3.1.4).
type robotsUnreachable struct {
	host    string
	cause   string    // what the last try got
	retryAt time.Time // when robots.txt is tried again
	gaveUp  bool      // retries exhausted: tried again at retryAt (the entry's expiry) only
	fetched bool      // this answer comes from the fetch that failed (not the cache)
}

func (e *robotsUnreachable) Error() string {
	return fmt.Sprintf("robots.txt of %s unreachable (%s): host disallowed until %s", e.host, e.cause, e.retryAt.UTC().Format(time.RFC3339))
}

// robotsCache fetches each origin's robots.txt (concurrent callers for one
// origin wait for the same fetch) and keeps it for ttl. An unreachable
// robots.txt is kept as a complete disallow until its next retry. The
// crawler does this itself rather than through colly, to read Crawl-delay
// and Sitemap: lines and to follow §2.3.1's status rules.
type robotsCache struct {
	client *http.Client
	agent  string
	// learnt is called with an origin's rules each time its robots.txt has
	// been read (a 2xx or an unavailable 4xx).
	learnt func(ctx context.Context, u *url.URL, rules *robots.Rules)
	// ttl, backoff, maxBackoff and retries: robotsTTL, robotsBackoff,
	// robotsMaxBackoff, robotsRetries when the cache was made.
	ttl, backoff, maxBackoff time.Duration
	retries                  int
	now                      func() time.Time

	mu    sync.Mutex
	hosts map[string]*robotsEntry
}

type robotsEntry struct {
	fetching chan struct{} // non-nil while a fetch runs; closed at its end
	rules    *robots.Rules // nil: unreachable
	expires  time.Time     // fetch again from then on
	failures int           // consecutive unreachable answers
	cause    string
}

func newRobotsCache(client *http.Client, agent string, learnt func(context.Context, *url.URL, *robots.Rules)) *robotsCache {
	rc := &robotsCache{agent: agent, learnt: learnt, hosts: map[string]*robotsEntry{},
		ttl: robotsTTL, backoff: robotsBackoff, maxBackoff: robotsMaxBackoff, retries: robotsRetries, now: time.Now}
	cl := *client
	cl.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > robotsRedirects {
			return http.ErrUseLastResponse // the 3xx itself: unavailable
		}
		return nil
	}
	rc.client = &cl
	return rc
}

// get returns the robots.txt rules of u's origin, reading it when the
// cached copy is missing or expired; a *robotsUnreachable while it cannot
// be read; or ctx's error.
func (rc *robotsCache) get(ctx context.Context, u *url.URL) (*robots.Rules, error) {
	key := u.Scheme + "://" + u.Host
	for {
		rc.mu.Lock()
		e := rc.hosts[key]
		if e == nil {
			e = &robotsEntry{}
			rc.hosts[key] = e
		}
		if ch := e.fetching; ch != nil {
			rc.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if now := rc.now(); now.Before(e.expires) {
			defer rc.mu.Unlock()
			return e.answer(u.Host, rc.retries)
		}
		e.fetching = make(chan struct{})
		rc.mu.Unlock()

		rules, cause, err := rc.fetch(ctx, key)
		now := rc.now()
		rc.mu.Lock()
		switch {
		case err != nil: // ctx ended: nothing learnt
		case rules != nil:
			e.rules, e.failures, e.cause, e.expires = rules, 0, "", now.Add(rc.ttl)
		default:
			e.rules, e.cause = nil, cause
			e.failures++
			if e.failures > rc.retries {
				e.expires = now.Add(rc.ttl)
			} else {
				e.expires = now.Add(min(rc.backoff<<(e.failures-1), rc.maxBackoff))
			}
		}
		var failed *robotsUnreachable
		if err == nil && rules == nil {
			failed = e.unreachable(u.Host, rc.retries)
			failed.fetched = true
		}
		close(e.fetching)
		e.fetching = nil
		rc.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if failed != nil {
			return nil, failed
		}
		if rc.learnt != nil {
			rc.learnt(ctx, u, rules)
		}
	}
}

// answer is what a cached entry says. Holds rc.mu.
func (e *robotsEntry) answer(host string, retries int) (*robots.Rules, error) {
	if e.rules != nil {
		return e.rules, nil
	}
	return nil, e.unreachable(host, retries)
}

// unreachable is the answer of an entry without rules. Holds rc.mu.
func (e *robotsEntry) unreachable(host string, retries int) *robotsUnreachable {
	return &robotsUnreachable{host: host, cause: e.cause, retryAt: e.expires, gaveUp: e.failures > retries}
}

// fetch reads origin's robots.txt and returns its rules: parsed from a 2xx;
// none (allow all) for an unavailable one (a 4xx other than 429, or still
// redirecting after robotsRedirects). rules is nil when it is unreachable
// (a 5xx or 429, a timeout, a network error), with what happened; err is
// set only when ctx ended.
func (rc *robotsCache) fetch(ctx context.Context, origin string) (rules *robots.Rules, cause string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return nil, err.Error(), nil
	}
	req.Header.Set("User-Agent", rc.agent)
	resp, err := rc.client.Do(req)
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	if err != nil {
		return nil, errText(err), nil
	}
	defer resp.Body.Close()
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		body, err := io.ReadAll(io.LimitReader(resp.Body, robots.MaxBytes))
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if err != nil {
			return nil, "reading the body: " + errText(err), nil
		}
		return robots.Parse(body), "", nil
	case s == http.StatusTooManyRequests || s >= 500 || s < 200:
		return nil, fmt.Sprintf("HTTP %d", s), nil
	default: // 3xx after robotsRedirects, 4xx: unavailable, no rules
		return &robots.Rules{}, "", nil
	}
}

// agentToken is the product token of a User-Agent string, lowercased
// ("bloomcrawl" for "bloomcrawl/0.1 (+https://...)"): the name robots.txt
// groups, robots meta tags and X-Robots-Tag values address us by.
func agentToken(ua string) string {
	tok, _, _ := strings.Cut(strings.TrimSpace(ua), "/")
	tok, _, _ = strings.Cut(tok, " ")
	return strings.ToLower(tok)
}
