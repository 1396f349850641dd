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

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/internal/dedupstore"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// restore rebuilds the in-memory state of an interrupted crawl from the
// store: the content-dedup index from the stored fingerprints and URL
// records, the URL filter from every URL fetched or queued, and the
// frontier from the pending queue. The rebuilt URL filter holds exactly the
// URLs the interrupted run had queued (every URL it added was either fetched
// or is still queued, because both are written in the same commit), so no
// filter snapshot is needed.
func (c *Crawler) restore(ctx context.Context) error {
	err := dedupstore.Restore(ctx, c.docs.index(), c.o.Store, func(r storage.URLRecord) {
		c.resumedURLs++
		c.filter.restored(r.URL)
		if c.refresh != nil {
			c.refresh.restored(r)
		}
		if c.sched != nil {
			c.sched.restored(r)
		}
	})
	if err != nil {
		return fmt.Errorf("crawler: %w", err)
	}
	if c.sched != nil {
		if err := c.sched.offerRestored(ctx); err != nil {
			return err
		}
	}
	n, err := c.front.Resume(ctx)
	if err != nil {
		return fmt.Errorf("crawler: restore queue: %w", err)
	}
	c.resumedQueue = int64(n)
	c.queued.Store(int64(n))
	if c.refresh != nil && n > 0 {
		// URLs still queued (a refresh the last run queued, say) are not
		// due again until they are fetched.
		var after uint64
		for {
			batch, err := c.o.Store.QueueScan(after, 10_000)
			if err != nil {
				return fmt.Errorf("crawler: restore refresh schedule: %w", err)
			}
			for _, e := range batch {
				c.refresh.queuedAtStart(e.URL)
				after = e.Seq
			}
			if len(batch) < 10_000 {
				break
			}
		}
	}
	return nil
}

// noIndex is the dedupstore.Index that ignores what a restore finds.
type noIndex struct{}

func (noIndex) RestoreDoc(uint64, string, contentdedup.Signature) {}
func (noIndex) RestoreURL(string, uint64)                         {}
func (noIndex) RestoreAlias(uint64, contentdedup.Signature)       {}

// seedURLs returns the configured seeds canonicalized, or an error naming
// the first seed that is malformed or out of scope.
func (c *Crawler) seedURLs() ([]string, error) {
	urls := make([]string, 0, len(c.settings.Seeds))
	for i, s := range c.settings.Seeds {
		u, err := c.canon.Canonicalize(nil, s)
		if err != nil {
			return nil, fmt.Errorf("crawler: seeds[%d] %q: %w", i, s, err)
		}
		if err := c.scope.Check(u); err != nil {
			return nil, fmt.Errorf("crawler: seeds[%d] %s: %w", i, u, err)
		}
		urls = append(urls, u.String())
	}
	return urls, nil
}

// queueSeeds offers the configured seeds (depth 0) and the sitemaps to read
// (sitemapSeeds). On a resumed crawl they are already in the URL filter
// and nothing is queued.
func (c *Crawler) queueSeeds(ctx context.Context) error {
	seeds, err := c.seedURLs()
	if err != nil {
		return err
	}
	var cands []frontier.Candidate
	for _, u := range seeds {
		cands = append(cands, frontier.Candidate{URL: u})
	}
	cands = append(cands, c.sitemapSeeds(ctx)...)
	n, err := c.queue.enqueue(ctx, cands)
	if err != nil {
		return fmt.Errorf("crawler: queue seeds: %w", err)
	}
	c.queued.Add(int64(n))
	return nil
}

// work takes entries from the queue until it is exhausted or ctx ends.
func (c *Crawler) work(ctx, fetchCtx context.Context) error {
	for {
		e, err := c.nextEntry(ctx)
		switch {
		case errors.Is(err, frontier.ErrExhausted), ctx.Err() != nil:
			return nil
		case err != nil:
			return fmt.Errorf("crawler: %w", err)
		}
		if err := c.handle(ctx, fetchCtx, e); err != nil {
			return err
		}
	}
}

// process owns one entry's life: it fetches the entry and commits its
// result, its new links, its dequeue and its URL trace in one step
// (fetch, then record what the fetch found, as a URL record or a page,
// then commit), and finishes the entry in the queue whatever happened
// (uncommitted, it stays queued).
func (c *Crawler) process(ctx, fetchCtx context.Context, e frontier.Entry) error {
	defer c.queue.finish(e)
	if err := c.archiveErr.Load(); err != nil {
		return *err
	}
	if e.Hints != nil && e.Hints.Sitemap {
		return c.processSitemap(ctx, fetchCtx, e)
	}
	var refresh, behind bool
	var prev *storage.URLRecord
	if c.refresh != nil {
		refresh, behind = c.refresh.taken(e.URL, time.Now())
		if !refresh && e.Hints != nil && !e.Hints.LastMod.IsZero() {
			// a refresh a sitemap's newer lastmod queued (queueNow) in a
			// run that stopped before fetching it: the URL has a record
			_, err := c.o.Store.URLRecord(e.URL)
			refresh = err == nil
		}
	}
	if c.sched != nil {
		// cluster mode: the refresh and its last fetch come with the entry
		var err error
		if refresh, behind, prev, err = c.sched.taken(e, c.o.Store, time.Now()); err != nil {
			return err
		}
	} else if refresh {
		if r, err := c.o.Store.URLRecord(e.URL); err == nil {
			prev = &r
		} else if !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("crawler: refresh %s: %w", e.URL, err)
		}
	}
	if c.fetchSlots != nil {
		select {
		case c.fetchSlots <- struct{}{}:
		case <-ctx.Done():
			return nil // left queued
		}
	}
	j := c.fetch(ctx, fetchCtx, e, prev)
	if c.fetchSlots != nil {
		<-c.fetchSlots
	}
	if j.abandoned || fetchCtx.Err() != nil && j.err != nil {
		// Aborted at shutdown, or a retry given up because the crawl is
		// stopping: leave it queued for the next run.
		return nil
	}
	if c.render == nil {
		c.queue.fetched(e) // (a render makes more requests to the host)
	}
	c.countFetch(j)
	if refresh {
		j.refresh = true
		if j.status != 0 {
			c.refreshed.Add(1)
		}
		if behind {
			c.behind.Add(1)
		}
	} else if !e.Queued.IsZero() && j.status != 0 {
		c.discovery.add(time.Since(e.Queued))
	}
	out, err := c.record(ctx, fetchCtx, e, j)
	defer c.filter.release(out.claimed) // after the commits, whatever their outcome
	if err != nil {
		if errors.Is(err, errStopping) {
			return nil // aborted at shutdown: left queued
		}
		return err
	}
	c.observe(e, j, out.cm.URL)
	if err := c.archive(ctx, j, out.verdict); err != nil {
		return fmt.Errorf("crawler: archive %s: %w", e.URL, err)
	}
	return c.commit(ctx, e, out)
}

// archive writes the fetch's exchanges with content dedup's verdict to
// Options.Archive, if set. It runs before the store commit: a crash in
// between refetches the page (archived twice) rather than leave it stored
// but not archived.
func (c *Crawler) archive(ctx context.Context, j *job, v *contentdedup.Verdict) error {
	if c.o.Archive == nil || len(j.exchanges) == 0 {
		return nil
	}
	if j.tooLarge != 0 {
		j.exchanges[len(j.exchanges)-1].Truncated = "length"
	}
	f := archive.Fetch{Exchanges: j.exchanges}
	if v != nil {
		f.Verdict = &archive.Verdict{DocID: v.DocID, Duplicate: v.Duplicate, Reason: string(v.Reason), Distance: v.Distance, MatchURL: v.MatchURL}
	}
	return c.o.Archive.Write(context.WithoutCancel(ctx), f)
}

// outcome is what processing one entry writes: the commit (its URL record
// or page, filled in by record; its queue changes and trace by commit), the
// redirect aliases beyond the commit's one URL record, and the links found.
type outcome struct {
	cm      storage.Commit
	extra   []*storage.URLRecord
	trace   []string // redirect aliases tested against the URL filter
	claimed []string // the aliases admitted (frontier.Claim), to Release
	links   []frontier.Candidate
	verdict *contentdedup.Verdict // content dedup's answer (nil: not parsed)
}

// countFetch counts a fetch's response and redirects.
func (c *Crawler) countFetch(j *job) {
	if j.status != 0 {
		c.fetched.Add(1)
	}
	if len(j.chain) > 0 {
		c.redirected.Add(1)
	}
}

// record turns a fetch into what is stored for it: a URL record for a
// fetch that is not parsed (refused, failed, not HTML), otherwise the page
// (or, for a duplicate, a URL record naming its document), its redirect
// aliases and its links. It returns errStopping if the crawl stopped while
// the page waited to be parsed, or the store's error while confirming an
// alias (out.claimed is then still to be released).
func (c *Crawler) record(ctx, fetchCtx context.Context, e frontier.Entry, j *job) (out outcome, err error) {
	now := time.Now().UTC()
	rec := &storage.URLRecord{URL: e.URL, Status: j.status, ContentType: j.contentType, FetchedAt: now, Hints: storageHints(e.Hints)}
	rec.Validators = j.validators
	out.cm = storage.Commit{Dequeue: []uint64{e.Seq}}
	prev := j.prev
	if prev != nil && j.status == http.StatusNotModified {
		// the conditional GET's answer: nothing changed, nothing rewritten
		// (but a sitemap's newer lastmod, so that it does not make the
		// URL due again)
		c.notModified.Add(1)
		if lm := rec.Hints.LastMod; lm.After(prev.Hints.LastMod) {
			r := *prev
			r.Hints.LastMod = lm
			out.cm.URL = &r
		}
		return out, nil
	}
	if j.mapped != nil {
		return out, c.recordMapped(ctx, e, j, rec, &out)
	}
	if !c.classify(e, j, rec) {
		if j.blocked != nil {
			if err := c.recordBlocked(ctx, j, rec, &out); err != nil {
				return out, err
			}
		}
		if prev == nil {
			// a failed refresh leaves the stored record as it was
			out.cm.URL = rec
		}
		return out, nil
	}
	final := j.final
	if final == nil {
		final = mustParse(e.URL)
	}
	doc, err := c.parse(fetchCtx, j, rec.ContentType, final)
	if errors.Is(err, errStopping) {
		return out, err
	}
	if err == nil && c.render != nil {
		doc, err = c.renderPage(fetchCtx, e, doc, final)
		if errors.Is(err, errStopping) {
			return out, err
		}
	}
	if err != nil {
		rec.Err = err.Error()
		c.errs.Add(1)
		out.cm.URL = rec
		return out, nil
	}
	rec.Hints.Canonical = c.declaredCanonical(e, j, doc, final)
	dir := c.directives(j, doc)
	if dir.NoIndex {
		// fetched and its links followed, but not stored
		rec.Reason = ReasonNoIndex
		c.noindex.Add(1)
		out.cm.URL = rec
	} else if same, err := c.sameDoc(e, rec, doc, prev, &out); err != nil {
		return out, err
	} else if same {
		// a refresh of the same document: its record (and page) updated
	} else {
		v, err := c.judge(ctx, e, j, rec, doc, final, &out.cm)
		if err != nil {
			return out, err
		}
		out.verdict = &v
		if err := c.recordAliases(ctx, e, j, rec, v.DocID, &out); err != nil {
			return out, err
		}
	}
	if !dir.NoFollow {
		out.links = c.links(e, doc, rec.Hints.Canonical)
	}
	return out, nil
}

// sameDoc handles a refresh of a page the store knows (prev, its URL
// record, names a document; nil or no document: false): the deduper maps the URL to prev's document,
// so the URL keeps it and its record is rewritten as it was with this
// fetch's time, status, declared canonical and validators. When the URL is
// its document's first URL and the page's title or text changed, the
// stored page is replaced by the new version (Commit.Update: its text,
// title and HTML; its fingerprints stay the first version's, so content
// dedup keeps matching copies of the original) and the record gets the
// change time. A new text that is a near-duplicate of the stored one
// (contentdedup's content rules) is an edit: the version is updated in
// place and the record counts one more edit. Any other change is a new
// version: the stored one is kept as an old version of the document
// (Commit.Version, recrawl.keep_versions) and the record counts one more
// version. A URL keeps its docId however much its text changed: a page at
// one URL (a hub, an edited article, a live blog) is one document that
// evolves. It reports false when the deduper maps the URL elsewhere (then
// judge decides, as for a first fetch), or the store's error.
func (c *Crawler) sameDoc(e frontier.Entry, rec *storage.URLRecord, doc *Document, prev *storage.URLRecord, out *outcome) (bool, error) {
	if prev == nil || prev.DocID == 0 {
		return false, nil
	}
	if c.handedOver(e, doc, prev) {
		return false, nil
	}
	v := c.checkRefreshed(e.URL, rec.Hints.Canonical, doc, prev)
	if v.Reason != contentdedup.ReasonURL || storage.DocID(v.DocID) != prev.DocID {
		return false, nil
	}
	r := *prev
	r.Status, r.ContentType, r.FetchedAt, r.Err = rec.Status, rec.ContentType, rec.FetchedAt, ""
	r.Hints.Canonical = rec.Hints.Canonical // the rest is what a sitemap said:
	if h := rec.Hints; !h.LastMod.IsZero() || !h.NewsPublished.IsZero() {
		// a sitemap said it again (a refresh its newer lastmod queued)
		r.Hints.LastMod, r.Hints.NewsPublished, r.Hints.NewsTitle = h.LastMod, h.NewsPublished, h.NewsTitle
	}
	r.Validators = rec.Validators
	out.cm.URL = &r
	out.verdict = &v
	if prev.Duplicate {
		return true, nil // another URL's document: left as it is
	}
	page, err := c.o.Store.Page(prev.DocID)
	if errors.Is(err, storage.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("crawler: refresh %s: %w", e.URL, err)
	}
	if page.Title == doc.Title && page.Text == doc.Text {
		return true, nil
	}
	c.changed.Add(1)
	r.ChangedAt = rec.FetchedAt
	distance, edit := c.isEdit(page.Title, page.Text, v.Sig)
	if edit {
		r.Edits++
	} else {
		n := max(prev.Versions, 1)
		since := prev.VersionAt
		if since.IsZero() {
			since = page.FetchedAt // version 1 began at the first fetch
		}
		out.cm.Version = &storage.KeepVersion{N: n, Since: since, Keep: max(c.settings.Recrawl.KeepVersions, 1)}
		r.Versions, r.VersionAt = n+1, rec.FetchedAt
		c.versions.Add(1)
	}
	page.Title, page.Text, page.HTML = doc.Title, doc.Text, doc.HTML
	doc.fill(&page)
	page.Status, page.ContentType = rec.Status, rec.ContentType
	out.cm.Update = &page
	c.log.Debug("page changed", "url", e.URL, "doc", prev.DocID, "edit", edit, "versions", r.VersionCount(),
		"distance", distance)
	return true, nil
}

// nearDuplicates is the part of *contentdedup.Deduper that tells an edit
// from a new version; a deduper without it makes every change a version.
type nearDuplicates interface {
	Sign(title, text string) contentdedup.Signature
	NearDuplicate(a, b contentdedup.Signature) (distance int, ok bool)
}

// isEdit reports whether a refreshed page whose signature is sig is a
// near-duplicate of its stored version (title, text): an edit, not a new
// version; and their content distance.
func (c *Crawler) isEdit(title, text string, sig contentdedup.Signature) (int, bool) {
	nd, ok := c.o.Dedup.(nearDuplicates)
	if !ok {
		return 0, false
	}
	return nd.NearDuplicate(sig, nd.Sign(title, text))
}

// ReasonNoIndex is the reason of the URL record of a page that asked not
// to be indexed (robots meta or X-Robots-Tag noindex): fetched, links
// followed, not stored.
const ReasonNoIndex = "noindex"

// directives returns the robots directives that apply to the page: its
// X-Robots-Tag headers and its <meta name="robots"> or <meta name=AGENT>
// (our user agent's product token), when politeness.obey_meta_robots.
func (c *Crawler) directives(j *job, doc *Document) Directives {
	var d Directives
	if !c.settings.Politeness.ObeyMetaRobots {
		return d
	}
	for _, v := range j.robotsTag {
		d.ParseDirectives(v, c.agent)
	}
	for _, m := range doc.RobotsMeta {
		if m.Name == "robots" || m.Name == c.agent {
			d.ParseDirectives(m.Content, c.agent)
		}
	}
	return d
}

// declaredCanonical returns the canonical URL the page declares
// (<link rel="canonical">, else a rel=canonical Link header),
// canonicalized, or "" when it declares none, an unusable one, or its own
// URL.
func (c *Crawler) declaredCanonical(e frontier.Entry, j *job, doc *Document, final *url.URL) string {
	href, base := doc.Canonical, doc.Base
	if href == "" {
		href, base = LinkHeaderCanonical(j.linkHeader), final
	}
	if href == "" {
		return ""
	}
	u, err := c.canon.Canonicalize(base, href)
	if err != nil {
		return ""
	}
	s := u.String()
	if s == e.URL || s == final.String() {
		return ""
	}
	return s
}

// ReasonRobots is the reason of the URL record of a URL robots.txt
// disallows (never requested), and of a URL redirecting to one.
const ReasonRobots = "robots"

// recordMapped records a fetch whose redirect led to a URL already
// recorded with a document (job.mapped), which was not requested again:
// e's URL, and the hops before the target, become aliases of that
// document (reason "redirect"), as if the target had been fetched.
func (c *Crawler) recordMapped(ctx context.Context, e frontier.Entry, j *job, rec *storage.URLRecord, out *outcome) error {
	target := j.mapped
	docID := uint64(target.DocID)
	rec.Status, rec.ContentType, rec.Reason = j.status, target.ContentType, ReasonRedirect
	rec.DocID, rec.Duplicate = target.DocID, true
	out.cm.URL = rec
	c.docs.alias(e.URL, docID)
	hops := *j
	hops.chain = j.chain[:len(j.chain)-1] // the target has its record
	return c.recordAliases(ctx, e, &hops, rec, docID, out)
}

// recordBlocked records the target of a redirect robots.txt disallows
// (job.blocked), not requested, with reason "robots", unless the URL
// filter has seen it.
func (c *Crawler) recordBlocked(ctx context.Context, j *job, rec *storage.URLRecord, out *outcome) error {
	target := j.blocked.String()
	out.trace = append(out.trace, target)
	fresh, err := c.filter.claim(context.WithoutCancel(ctx), target)
	if err != nil {
		return fmt.Errorf("crawler: redirect target %s: %w", target, err)
	}
	if !fresh {
		return nil
	}
	out.claimed = append(out.claimed, target)
	out.extra = append(out.extra, &storage.URLRecord{URL: target, Reason: ReasonRobots, Err: "disallowed by robots.txt",
		FetchedAt: rec.FetchedAt})
	c.robots.Add(1)
	return nil
}

// ReasonRedirect is the reason of the URL record of a URL that redirects
// to its document's URL (an alias).
const ReasonRedirect = "redirect"

// classify sorts out the fetches that are not parsed, filling in rec and
// counting them, and reports whether the body is to be parsed (then
// rec.ContentType is set, sniffed if the server sent none).
func (c *Crawler) classify(e frontier.Entry, j *job, rec *storage.URLRecord) (parse bool) {
	switch {
	case j.blocked != nil:
		rec.Err = "redirect to " + j.blocked.String() + ": disallowed by robots.txt"
		rec.Reason = ReasonRobots
		c.robots.Add(1)
	case errors.Is(j.err, colly.ErrRobotsTxtBlocked):
		rec.Err = "disallowed by robots.txt"
		rec.Reason = ReasonRobots
		c.robots.Add(1)
	case j.nonHTML:
		c.nonHTML.Add(1)
	case j.tooLarge != 0:
		if j.tooLarge > 0 {
			rec.Err = fmt.Sprintf("body of %d bytes exceeds fetch.max_body_bytes (%d)", j.tooLarge, c.settings.Fetch.MaxBodyBytes)
		} else {
			rec.Err = fmt.Sprintf("body exceeds fetch.max_body_bytes (%d); refused after reading that much", c.settings.Fetch.MaxBodyBytes)
		}
		c.errs.Add(1)
	case errors.As(j.err, new(*hostDown)):
		rec.Err = j.err.Error()
		rec.Reason = ReasonHostFailing
		c.errs.Add(1)
	case j.err != nil:
		rec.Err = errText(j.err)
		c.errs.Add(1)
		c.log.Debug("fetch failed", "url", e.URL, "status", j.status, "err", j.err)
	case rec.ContentType == "" && !c.allowedType(http.DetectContentType(j.body)):
		rec.ContentType = http.DetectContentType(j.body)
		c.nonHTML.Add(1)
	default:
		if rec.ContentType == "" {
			rec.ContentType = http.DetectContentType(j.body)
		}
		return true
	}
	return false
}

// parse extracts the document from the body. Parsing builds a DOM several
// times the page's size: the bytes being parsed at once are bounded so
// that a burst of huge pages cannot blow the heap (the Rust docs have pages
// of several MB). It returns errStopping if the crawl stopped while
// waiting for that budget, or Extract's error.
func (c *Crawler) parse(fetchCtx context.Context, j *job, contentType string, final *url.URL) (*Document, error) {
	w := min(int64(len(j.body)), c.parseBudget)
	if err := c.parseMem.Acquire(fetchCtx, w); err != nil {
		return nil, errStopping
	}
	defer c.parseMem.Release(w)
	return Extract(j.body, contentType, j.collyDecoded, final)
}

// errStopping is parse's answer when the crawl stops before the page is
// parsed (it stays queued).
var errStopping = errors.New("crawler: stopping")

// judge asks the deduper whether doc is a new document and sets cm's page
// (new) or URL record (a duplicate, naming its document). It returns the
// deduper's verdict, or in cluster mode the document log's error.
func (c *Crawler) judge(ctx context.Context, e frontier.Entry, j *job, rec *storage.URLRecord, doc *Document, final *url.URL, cm *storage.Commit) (contentdedup.Verdict, error) {
	v, err := c.docs.judge(ctx, e, j, rec, doc)
	if err != nil {
		return v, err
	}
	if v.Duplicate {
		rec.DocID, rec.Duplicate, rec.Reason, rec.Distance = storage.DocID(v.DocID), true, string(v.Reason), v.Distance
		if v.Reason != contentdedup.ReasonURL {
			// title/content duplicate: keep its signature, which the
			// deduper indexes under v.DocID (restored on resume)
			dedupstore.SetDuplicateSignature(rec, v.Sig)
		}
		cm.URL = rec
		c.dups.Add(1)
		return v, nil
	}
	cm.Page = &storage.Page{
		DocID: storage.DocID(v.DocID), URL: e.URL, Status: j.status, ContentType: rec.ContentType, FetchedAt: rec.FetchedAt,
		Title: doc.Title, Text: doc.Text, HTML: doc.HTML,
		TitleFP: v.Sig.Title, ContentFP: v.Sig.Content, FPFlags: v.Sig.Flags, Sketch: v.Sig.Sketch.Bytes(),
		Depth: e.Depth, Referrer: e.Referrer, Hints: rec.Hints, Validators: rec.Validators,
	}
	doc.fill(cm.Page)
	dedupstore.SetSimilarity(cm.Page, v.Similar)
	if final.String() != e.URL {
		cm.Page.FinalURL = final.String()
	}
	c.stored.Add(1)
	return v, nil
}

// recordAliases records every URL of the redirect chain as another URL of
// docID, so that it is not fetched again: the frontier admits each one
// not seen before, the deduper maps it to docID, and the store gets its
// URL record (the first in out.cm when that has none, the others in
// out.extra).
func (c *Crawler) recordAliases(ctx context.Context, e frontier.Entry, j *job, rec *storage.URLRecord, docID uint64, out *outcome) error {
	for _, u := range j.chain {
		alias := u.String()
		if alias == e.URL {
			continue
		}
		out.trace = append(out.trace, alias)
		fresh, err := c.filter.claim(context.WithoutCancel(ctx), alias)
		if err != nil {
			return fmt.Errorf("crawler: redirect alias %s: %w", alias, err)
		}
		if !fresh {
			continue
		}
		out.claimed = append(out.claimed, alias)
		c.docs.alias(alias, docID)
		r := &storage.URLRecord{URL: alias, DocID: storage.DocID(docID), Duplicate: true, Reason: ReasonRedirect,
			Status: j.status, ContentType: rec.ContentType, FetchedAt: rec.FetchedAt}
		if out.cm.URL == nil {
			out.cm.URL = r
		} else {
			out.extra = append(out.extra, r)
		}
	}
	return nil
}

// commit writes the outcome: its extra redirect aliases first, in their
// own commits (if the process dies before the main commit, they only name
// a document that is not stored yet, which storage allows, and the page
// itself stays queued), then the page's record or page with its new links
// and its dequeue, in one step of the queue (urlQueue.commit).
func (c *Crawler) commit(ctx context.Context, e frontier.Entry, out outcome) error {
	wctx := context.WithoutCancel(ctx)
	for _, r := range out.extra {
		if _, err := c.o.Store.Commit(wctx, storage.Commit{URL: r}); err != nil {
			return fmt.Errorf("crawler: store redirect alias %s: %w", r.URL, err)
		}
	}
	cm := out.cm
	cm.Trace = out.trace
	queued, err := c.queue.commit(wctx, e, cm, out.links)
	if err != nil {
		return err
	}
	c.queued.Add(queued)
	c.done.Add(1)
	if c.refresh != nil {
		c.refresh.fetched(e.URL, time.Now(), e.Hints != nil && e.Hints.Sitemap)
	}
	return nil
}

// links canonicalizes the page's links (with politeness.follow_nofollow_links
// also its rel=nofollow ones) and its declared canonical URL (already
// canonical; "" for none), keeps those in scope and returns them once each,
// in page order, as candidates one level deeper.
func (c *Crawler) links(e frontier.Entry, doc *Document, canonical string) []frontier.Candidate {
	hrefs := doc.Links
	if c.settings.Politeness.FollowNofollowLinks && len(doc.NofollowLinks) > 0 {
		hrefs = append(slices.Clip(hrefs), doc.NofollowLinks...)
	}
	if canonical != "" {
		hrefs = append(slices.Clip(hrefs), canonical)
	}
	seen := make(map[string]struct{}, len(hrefs))
	var out []frontier.Candidate
	for _, href := range hrefs {
		u, err := c.canon.Canonicalize(doc.Base, href)
		if err != nil {
			continue
		}
		if err := c.checkLink(e.URL, u); err != nil {
			c.skippedLink(u, err)
			continue
		}
		s := u.String()
		if _, dup := seen[s]; dup {
			continue
		}
		seen[s] = struct{}{}
		out = append(out, frontier.Candidate{URL: s, Depth: e.Depth + 1, Referrer: e.URL})
	}
	return out
}

func queueEntries(es []frontier.Entry) []storage.QueueEntry {
	if len(es) == 0 {
		return nil
	}
	out := make([]storage.QueueEntry, len(es))
	for i, e := range es {
		out[i] = storage.QueueEntry{Seq: e.Seq, URL: e.URL, Depth: e.Depth, Referrer: e.Referrer, Hints: storageHints(e.Hints)}
	}
	return out
}

// mustParse parses a URL the canonicalizer produced (it always parses).
func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(fmt.Sprintf("crawler: canonical URL %q does not parse: %v", s, err))
	}
	return u
}

// errText is err without net/http's `Get "URL": ` prefix (the record
// already names the URL).
func errText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
