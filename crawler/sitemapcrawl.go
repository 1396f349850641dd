package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/gocolly/colly/v2"
	"golang.org/x/sync/errgroup"

	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/robots"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// ReasonSitemap is the reason of a sitemap's URL record.
const ReasonSitemap = "sitemap"

// sitemapCommitChunk is the number of a sitemap's URLs reserved and
// committed together: a 50,000-URL sitemap is queued in several commits,
// the last of which also records and dequeues the sitemap (a crash before
// it leaves the sitemap queued; reading it again queues only what the
// URL filter has not seen).
var sitemapCommitChunk = 10_000 // (a variable for the tests)

// sitemapSeeds returns the sitemaps a crawl starts with (scope.sitemaps):
// none ("off"); the configured URLs; or ("auto") for each seed host the
// Sitemap: lines of its robots.txt and its /sitemap.xml. They are queued
// like seeds, at depth 0, marked as sitemaps, in the seeds' commit. A
// resumed crawl (a store with URL records or a queue) offers none: the
// first run queued them with its seeds, so the sitemaps are read once per
// store.
func (c *Crawler) sitemapSeeds(ctx context.Context) []frontier.Candidate {
	if c.o.Cluster != nil && len(c.settings.Scope.Sitemaps.URLs) == 0 {
		// a cluster node reads no seed host's robots.txt here (every node
		// would): "auto" sitemaps are queued by the node that first reads
		// a host's robots.txt, the owner of its partition (hostSitemaps)
		return nil
	}
	for _, s := range c.settings.Seeds {
		// their sitemaps are queued here, with the seeds (hostSitemaps
		// reads those of the hosts the crawl enters later)
		if u, err := c.canon.Canonicalize(nil, s); err == nil {
			c.sitemapHosts.Store(u.Scheme+"://"+u.Host, true)
		}
	}
	if c.resumedURLs > 0 || c.resumedQueue > 0 {
		return nil
	}
	sm := c.settings.Scope.Sitemaps
	var raw []string
	probe := map[string]bool{}
	switch {
	case sm.Off:
		return nil
	case len(sm.URLs) > 0:
		raw = sm.URLs
	default:
		// each seed host's robots.txt, read politeness.concurrency at a
		// time (a crawl of many seed hosts does not wait for them one by
		// one), its Sitemap: lines in seed order
		seen := map[string]bool{}
		var hosts []*url.URL
		for _, s := range c.settings.Seeds {
			u, err := c.canon.Canonicalize(nil, s)
			if err == nil && !seen[u.Scheme+"://"+u.Host] {
				seen[u.Scheme+"://"+u.Host] = true
				hosts = append(hosts, u)
			}
		}
		lines := make([][]string, len(hosts))
		var g errgroup.Group
		g.SetLimit(c.settings.Politeness.Concurrency)
		for i, u := range hosts {
			g.Go(func() error {
				rules, err := c.robotsTxt.get(ctx, u)
				if err != nil {
					c.log.Warn("robots.txt unreadable; its Sitemap: lines are not read", "host", u.Host, "err", err)
					return nil
				}
				lines[i] = rules.Sitemaps
				return nil
			})
		}
		g.Wait()
		for i, u := range hosts {
			origin := u.Scheme + "://" + u.Host
			raw = append(raw, lines[i]...)
			raw = append(raw, origin+"/sitemap.xml")
			probe[origin+"/sitemap.xml"] = true
		}
	}
	return c.sitemapList(raw, probe)
}

// sitemapList returns the sitemaps raw names as candidates: canonical, in
// scope, marked as sitemaps (probe: guessed, a 404 leaves no record).
func (c *Crawler) sitemapList(raw []string, probe map[string]bool) []frontier.Candidate {
	var out []frontier.Candidate
	for _, s := range raw {
		u, err := c.canon.Canonicalize(nil, s)
		if err != nil {
			c.log.Warn("sitemap URL unusable", "url", s, "err", err)
			continue
		}
		if err := c.scope.Check(u); err != nil {
			c.log.Warn("sitemap out of scope; not read", "url", u.String(), "err", err)
			continue
		}
		// (a /sitemap.xml that robots.txt named comes first, as declared;
		// the guessed one after it is then seen)
		out = append(out, frontier.Candidate{URL: u.String(), Hints: &frontier.Hints{Sitemap: true, Probe: probe[s]}})
	}
	return out
}

// hostSitemaps queues, with scope.sitemaps auto, the sitemaps of a host
// the crawl enters beyond the seed hosts (sitemapSeeds reads theirs): the
// Sitemap: lines of its robots.txt (rules, just read) and its
// /sitemap.xml, once per host and run (sitemapHosts), at depth 0 like the
// seeds' and tested against the URL filter like any URL, so a sitemap is
// still read once per store; a resumed run offers them again and only a
// guessed /sitemap.xml that was missing is requested again.
func (c *Crawler) hostSitemaps(ctx context.Context, u *url.URL, rules *robots.Rules) {
	sm := c.settings.Scope.Sitemaps
	if sm.Off || len(sm.URLs) > 0 {
		return
	}
	origin := u.Scheme + "://" + u.Host
	if _, done := c.sitemapHosts.LoadOrStore(origin, true); done {
		return
	}
	if c.scope.Check(u) != nil {
		return
	}
	raw := append(slices.Clip(rules.Sitemaps), origin+"/sitemap.xml")
	cands := c.sitemapList(raw, map[string]bool{origin + "/sitemap.xml": true})
	n, err := c.queue.enqueue(context.WithoutCancel(ctx), cands)
	if err != nil {
		c.log.Warn("sitemaps of a new host not queued", "host", u.Host, "err", err)
		return
	}
	c.queued.Add(int64(n))
}

// processSitemap reads the sitemap of entry e and queues what it lists:
// the URLs of a sitemap (with their lastmod and news fields) through scope,
// the canonicalizer and the URL filter like links, at depth 0; the
// sitemaps of an index (one level: an index listed by an index is not
// read, as the protocol allows none). The sitemap's URL record (reason
// "sitemap") says what went wrong, if anything: a failed fetch, a file
// that is not a sitemap, or a protocol limit exceeded (the URLs before the
// limit are still queued).
func (c *Crawler) processSitemap(ctx, fetchCtx context.Context, e frontier.Entry) error {
	rec := &storage.URLRecord{URL: e.URL, Reason: ReasonSitemap, FetchedAt: time.Now().UTC(), Hints: storageHints(e.Hints)}
	sm, err := c.readSitemap(context.WithValue(fetchCtx, entryKey{}, e), e.URL, rec)
	if err != nil && (fetchCtx.Err() != nil || c.robotsWait(e, err)) {
		return nil // aborted at shutdown, or waiting for robots.txt: left queued
	}
	out := outcome{cm: storage.Commit{URL: rec, Dequeue: []uint64{e.Seq}}}
	rec.Hints.Probe = false
	if e.Hints.Probe && (rec.Status == http.StatusNotFound || rec.Status == http.StatusGone) {
		// a guessed /sitemap.xml that is not there: no sitemap, no record
		// (a later run looks again)
		out.cm.URL = nil
		return c.commit(ctx, e, out)
	}
	c.sitemaps.Add(1) // (not in Stats.Fetched, which counts pages, as robots.txt is not)
	switch {
	case err != nil:
		rec.Err = err.Error()
		c.log.Debug("sitemap not read", "url", e.URL, "err", err)
	case sm.Index && e.Referrer != "":
		rec.Err = "a sitemap index listed by a sitemap index: not read (the protocol allows one level)"
	default:
		if sm.Limit != "" {
			rec.Err = "sitemap " + sm.Limit
			c.log.Warn("sitemap exceeds a protocol limit", "url", e.URL, "limit", sm.Limit)
		}
		if err != nil {
			rec.Err = err.Error()
		}
		c.sitemapURLs.Add(int64(len(sm.Entries)))
		out.links = c.sitemapCandidates(e, sm)
		if err := c.queueModified(ctx, out.links); err != nil {
			return err
		}
	}
	for len(out.links) > sitemapCommitChunk {
		chunk := out.links[:sitemapCommitChunk]
		out.links = out.links[sitemapCommitChunk:]
		n, err := c.queue.enqueue(context.WithoutCancel(ctx), chunk)
		if err != nil {
			return fmt.Errorf("crawler: queue URLs of sitemap %s: %w", e.URL, err)
		}
		c.queued.Add(int64(n))
	}
	return c.commit(ctx, e, out)
}

// readSitemap fetches and parses one sitemap (robots.txt permitting, for
// it and for each redirect target: checkSitemapRedirect),
// setting rec's status and content type. A parse error comes with what was
// read before it.
func (c *Crawler) readSitemap(ctx context.Context, rawURL string, rec *storage.URLRecord) (*Sitemap, error) {
	if c.settings.Politeness.ObeyRobots {
		if err := c.robotsAllow(ctx, rawURL); errors.Is(err, colly.ErrRobotsTxtBlocked) {
			return nil, errors.New("disallowed by robots.txt")
		} else if err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.settings.Politeness.UserAgent)
	resp, err := c.sitemapClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the record names the URL (a refused redirect's robots.txt answer kept)
		}
		return nil, err
	}
	defer resp.Body.Close()
	rec.Status, rec.ContentType = resp.StatusCode, resp.Header.Get("Content-Type")
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	sm, err := ParseSitemap(resp.Body)
	if err != nil && len(sm.Entries) == 0 {
		return nil, err
	}
	return sm, err
}

// sitemapCandidates turns a sitemap's entries into frontier candidates:
// canonical, in scope, at depth 0, referred by the sitemap.
func (c *Crawler) sitemapCandidates(e frontier.Entry, sm *Sitemap) []frontier.Candidate {
	base := mustParse(e.URL)
	out := make([]frontier.Candidate, 0, len(sm.Entries))
	for _, en := range sm.Entries {
		u, err := c.canon.Canonicalize(base, en.Loc)
		if err != nil || c.scope.Check(u) != nil {
			continue
		}
		h := &frontier.Hints{Sitemap: sm.Index, LastMod: en.LastMod, NewsPublished: en.NewsPublished, NewsTitle: en.NewsTitle}
		if *h == (frontier.Hints{}) {
			h = nil
		}
		out = append(out, frontier.Candidate{URL: u.String(), Referrer: e.URL, Hints: h})
	}
	return out
}

// queueModified queues, in a continuous crawl, a refresh of every URL of
// cands (a sitemap's) whose lastmod is newer than its last fetch and than
// the lastmod its record holds: the site says the page changed, so it is
// due now, whatever its schedule (a conditional GET, as any refresh). New
// URLs are left to the URL filter, as always. It reads one URL record per
// candidate with a lastmod.
func (c *Crawler) queueModified(ctx context.Context, cands []frontier.Candidate) error {
	if c.sched != nil {
		return c.sched.queueModified(ctx, c, cands)
	}
	if c.refresh == nil {
		return nil
	}
	var due []frontier.Candidate
	now := time.Now()
	for _, cand := range cands {
		if cand.Hints == nil || cand.Hints.Sitemap || cand.Hints.LastMod.IsZero() {
			continue
		}
		lm := cand.Hints.LastMod
		rec, err := c.o.Store.URLRecord(cand.URL)
		if errors.Is(err, storage.ErrNotFound) {
			continue // not fetched yet
		}
		if err != nil {
			return fmt.Errorf("crawler: lastmod of %s: %w", cand.URL, err)
		}
		if rec.Hints.Sitemap || rec.FetchedAt.IsZero() || !lm.After(rec.FetchedAt) || !lm.After(rec.Hints.LastMod) {
			continue
		}
		if c.refresh.queueNow(cand.URL, now) {
			due = append(due, cand)
		}
	}
	if len(due) == 0 {
		return nil
	}
	c.lastmodDue.Add(int64(len(due)))
	if err := c.queueRefreshes(context.WithoutCancel(ctx), due); err != nil {
		urls := make([]string, len(due))
		for i, d := range due {
			urls[i] = d.URL
		}
		c.refresh.unqueue(urls)
		return err
	}
	return nil
}
