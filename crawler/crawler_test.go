package crawler

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/internal/samplesite"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// The gse dictionary loads once per test binary (contentdedup shares it
// between Dedupers); newDeduper just builds an empty index.
func newDeduper(t testing.TB) *contentdedup.Deduper {
	t.Helper()
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// siteConfig is the crawl configuration the tests use for the sample site.
func siteConfig(base string) *configs.Config {
	cfg := configs.Default()
	cfg.Seeds = []string{base + "/"}
	cfg.Scope.Exclude = []string{`/calendar\?`}
	cfg.Politeness.PerHostParallelism = 8
	cfg.Politeness.Concurrency = 8
	cfg.Fetch.Timeout = configs.Duration(5 * time.Second)
	cfg.Dedup.Capacity = 10_000
	return cfg
}

type crawlResult struct {
	stats Stats
	err   error
	urls  map[string]storage.URLRecord // by path (query kept)
	pages map[storage.DocID]storage.Page
	queue int
}

// newCrawler builds a crawler of cfg with o's components, the others built
// from cfg as the crawl command does (NewOptions, then New).
func newCrawler(cfg *configs.Config, o Options) (*Crawler, error) {
	o, err := NewOptions(cfg, o, false)
	if err != nil {
		return nil, err
	}
	return New(o)
}

// crawlInto crawls cfg into the store at dir with a fresh filter and
// deduper built from cfg (unless filter is given), as the crawl command does,
// and reads back what the store holds.
func crawlInto(t *testing.T, ctx context.Context, cfg *configs.Config, dir string, filter urlFilter, fp func() uint64, mods ...func(*Options)) crawlResult {
	t.Helper()
	cfg.Store.Dir = dir
	db, err := storage.Open(dir, StoreOptions(cfg.Store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return crawlDB(t, ctx, cfg, db, filter, fp, mods...)
}

// crawlDB is crawlInto on an open store.
func crawlDB(t *testing.T, ctx context.Context, cfg *configs.Config, db *storage.DB, filter urlFilter, fp func() uint64, mods ...func(*Options)) crawlResult {
	t.Helper()
	o := Options{Store: db, URLFilter: filter, FalsePositives: fp, Grace: time.Second, RetryBackoff: 10 * time.Millisecond}
	for _, m := range mods {
		m(&o)
	}
	c, err := newCrawler(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	var r crawlResult
	r.stats, r.err = c.Run(ctx)
	r.urls = map[string]storage.URLRecord{}
	r.pages = map[storage.DocID]storage.Page{}
	err = db.ForEachURL(context.Background(), func(u storage.URLRecord) error {
		pu, err := url.Parse(u.URL)
		if err != nil {
			return err
		}
		r.urls[pu.RequestURI()] = u
		if u.DocID != 0 && !u.Duplicate {
			p, err := db.Page(u.DocID)
			if err != nil {
				return fmt.Errorf("page %x of %s: %w", u.DocID, u.URL, err)
			}
			r.pages[u.DocID] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.queue, err = db.QueueLen(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkManifest asserts that the store holds what the sample site's
// Manifest says a correct crawl stores. Exact for everything deterministic:
// one stored page per Doc; its same-text copies, redirects and "/" vs
// "/index.html" mapped to it; no two Docs merged; errors and resources
// recorded. Near-duplicate copies (SameText false) are the fingerprint's
// recall, not the crawler's: each must be either mapped to its Doc or stored
// as a page of its own (never mapped to another Doc); the recall is logged.
func checkManifest(t *testing.T, m samplesite.Manifest, r crawlResult) {
	t.Helper()
	if r.queue != 0 {
		t.Errorf("%d entries left in the queue", r.queue)
	}
	docOf := map[storage.DocID]string{} // docID → Doc.Path
	near, merged := 0, 0
	for _, d := range m.Docs {
		paths := []string{d.Path}
		for _, c := range d.Copies {
			if c.SameText {
				paths = append(paths, c.Path)
			}
		}
		paths = append(paths, d.Redirects...)
		var id storage.DocID
		var stored []string
		for _, p := range paths {
			rec, ok := r.urls[p]
			if !ok {
				if !contains(d.Redirects, p) { // intermediate hops need not be recorded
					t.Errorf("doc %s: URL %s not recorded", d.Path, p)
				}
				continue
			}
			if rec.DocID == 0 {
				t.Errorf("doc %s: URL %s has no document (err %q)", d.Path, p, rec.Err)
				continue
			}
			if id == 0 {
				id = rec.DocID
			} else if rec.DocID != id {
				t.Errorf("doc %s: URL %s maps to %x, want %x (reason %s, distance %d)", d.Path, p, rec.DocID, id, rec.Reason, rec.Distance)
			}
			if !rec.Duplicate {
				stored = append(stored, p)
			}
		}
		// The first copy fetched is the one kept. Workers fetch in parallel,
		// so a merged near-duplicate copy (syndicated, edited) may arrive
		// before the article itself and be the stored URL of the document.
		keptNear := false
		if p, ok := r.pages[id]; ok && len(stored) == 0 {
			if pu, err := url.Parse(p.URL); err == nil && isNearCopy(d, pu.RequestURI()) {
				stored, keptNear = []string{pu.RequestURI()}, true
			}
		}
		if len(stored) != 1 {
			t.Errorf("doc %s: stored under %v, want exactly one URL", d.Path, stored)
		}
		if other, dup := docOf[id]; dup && id != 0 {
			t.Errorf("docs %s and %s merged into one document %x", other, d.Path, id)
		}
		docOf[id] = d.Path
		if p, ok := r.pages[id]; ok && !keptNear {
			if !strings.Contains(p.Text, d.Snippet) {
				t.Errorf("doc %s (%s): stored text lacks its first sentence %q; text starts %q", d.Path, d.Charset, d.Snippet, trunc(p.Text, 120))
			}
			if p.Title != d.Title {
				t.Errorf("doc %s: title %q, want %q", d.Path, p.Title, d.Title)
			}
		}
		for _, c := range d.Copies {
			if c.SameText {
				continue
			}
			near++
			rec, ok := r.urls[c.Path]
			switch {
			case !ok || rec.DocID == 0:
				t.Errorf("near-duplicate %s of %s: not recorded with a document: %+v", c.Path, d.Path, rec)
			case rec.DocID == id:
				merged++
			case rec.Duplicate:
				t.Errorf("near-duplicate %s of %s mapped to another document (%s, reason %s)", c.Path, d.Path, r.pages[rec.DocID].URL, rec.Reason)
			default:
				docOf[rec.DocID] = c.Path
				t.Logf("near-duplicate %s (%s) of %s not merged: stored as its own document", c.Path, c.Kind, d.Path)
			}
		}
	}
	t.Logf("near-duplicate recall: %d of %d copies merged", merged, near)
	if len(r.pages) != len(docOf) {
		t.Errorf("%d pages stored, want %d (one per document and per unmerged near-duplicate)", len(r.pages), len(docOf))
		for id, p := range r.pages {
			if _, ok := docOf[id]; !ok {
				t.Errorf("  unexpected stored page %s", p.URL)
			}
		}
	}
	for _, f := range m.Errors {
		rec, ok := r.urls[f.Path]
		if !ok || rec.DocID != 0 || rec.Err == "" {
			t.Errorf("error URL %s (%s): record %+v, want an error record", f.Path, f.Reason, rec)
		}
	}
	for _, res := range m.Resources {
		rec, ok := r.urls[res.Path]
		if !ok || rec.DocID != 0 || !strings.HasPrefix(rec.ContentType, res.ContentType) {
			t.Errorf("resource %s: record %+v, want content type %s and no document", res.Path, rec, res.ContentType)
		}
	}
}

// isNearCopy reports whether path is one of d's near-duplicate copies (not
// the same text).
func isNearCopy(d samplesite.Doc, path string) bool {
	for _, c := range d.Copies {
		if !c.SameText && c.Path == path {
			return true
		}
	}
	return false
}

func requestCounts(site *samplesite.Site) map[string]int {
	reqs, _ := site.Requests()
	count := map[string]int{}
	for _, u := range reqs {
		count[u]++
	}
	return count
}

func isRedirectTarget(m samplesite.Manifest, path string) bool {
	for _, r := range m.Redirects {
		if r.To == path {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func TestCrawlSampleSite(t *testing.T) {
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: 300 * time.Millisecond})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := site.Manifest()
	r := crawlInto(t, context.Background(), siteConfig(base), t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkManifest(t, m, r)

	// Robots, aliases, fragments: never requested as such.
	for _, p := range m.Disallowed {
		if n := site.Hits(p); n != 0 {
			t.Errorf("robots.txt disallows %s, requested %d times", p, n)
		}
		if rec := r.urls[p]; rec.Err == "" {
			t.Errorf("disallowed %s: record %+v, want a robots.txt record", p, rec)
		}
	}
	for _, a := range m.Aliases {
		asWritten, _, _ := strings.Cut(a.Href, "#")
		if asWritten != a.Canonical && site.Hits(asWritten) != 0 {
			t.Errorf("alias %s requested as written", a.Href)
		}
	}
	// Every URL requested once, except robots.txt (once per worker at
	// most) and redirect targets: following /old/x requests /x even when
	// /x was queued on its own.
	for u, n := range requestCounts(site) {
		if n > 1 && u != m.RobotsTxt && !isRedirectTarget(m, u) {
			t.Errorf("%s requested %d times", u, n)
		}
	}
	st := r.stats
	aliases := 0
	for _, rec := range r.urls {
		if rec.Reason == "redirect" {
			aliases++
		}
	}
	// (the sample site has no sitemap: its /sitemap.xml is probed, a 404
	// that leaves no record)
	if got := st.Stored + st.Duplicates + st.NonHTML + st.Errors + st.Robots + st.NoIndex + st.Sitemaps; got != int64(len(r.urls)-aliases) || st.Sitemaps != 0 {
		t.Errorf("stats count %d URLs, the store has %d URL records besides %d redirect aliases: %+v", got, len(r.urls)-aliases, aliases, st)
	}
	if st.Stored != int64(len(r.pages)) || st.Robots != int64(len(m.Disallowed)) || st.NonHTML != int64(len(m.Resources)) ||
		st.Errors != int64(len(m.Errors)) || st.Queued != 0 {
		t.Errorf("stats %+v: want stored %d, robots %d, non-HTML %d, errors %d, queued 0",
			st, len(r.pages), len(m.Disallowed), len(m.Resources), len(m.Errors))
	}
}

// TestCrawlQueueSpillsToStore runs the sample-site crawl with a frontier
// window of 2 entries, so nearly the whole queue lives in the store and is
// read back through QueueScan: the result must be the same.
func TestCrawlQueueSpillsToStore(t *testing.T) {
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: -1})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	r := crawlInto(t, context.Background(), siteConfig(base), t.TempDir(), nil, nil, func(o *Options) { o.Window = 2 })
	if r.err != nil {
		t.Fatal(r.err)
	}
	checkManifest(t, site.Manifest(), r)
}

func TestCrawlTrapBoundedByDepth(t *testing.T) {
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: -1})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := site.Manifest()
	cfg := siteConfig(base)
	cfg.Scope.Exclude = nil
	cfg.Scope.MaxDepth = 6
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	// month N is at depth FirstDepth+N-1, so depth 6 reaches month 6-FirstDepth+1.
	wantMonths := cfg.Scope.MaxDepth - m.Trap.FirstDepth + 1
	months := 0
	reqs, _ := site.Requests()
	for _, u := range reqs {
		if strings.HasPrefix(u, "/calendar?") {
			months++
		}
	}
	if months != wantMonths {
		t.Errorf("requested %d calendar months, want %d (max_depth %d)", months, wantMonths, cfg.Scope.MaxDepth)
	}
	if r.queue != 0 {
		t.Errorf("queue left %d", r.queue)
	}
}

func TestCrawlSlowPageTimesOut(t *testing.T) {
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: 3 * time.Second})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cfg := siteConfig(base)
	cfg.Seeds = []string{base + "/slow"}
	cfg.Fetch.Timeout = configs.Duration(300 * time.Millisecond)
	r := crawlInto(t, context.Background(), cfg, t.TempDir(), nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	rec := r.urls["/slow"]
	if rec.DocID != 0 || !strings.Contains(strings.ToLower(rec.Err), "timeout") && !strings.Contains(rec.Err, "deadline") {
		t.Errorf("slow page record %+v, want a timeout error", rec)
	}
}

// TestAuditLosesNothing crawls with a filter far too small for the site: on
// its own (dedup.verify false) it drops pages (false positives); audited,
// the crawl stores every document and counts the false positives.
func TestAuditLosesNothing(t *testing.T) {
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: -1})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := site.Manifest()
	tiny := func() urlfilter.Filter {
		f, err := urlfilter.New(urlfilter.Options{Variant: "classic", Capacity: 4, TargetFP: 0.4})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	pure := siteConfig(base)
	pure.Dedup.Verify = false
	plain := crawlInto(t, context.Background(), pure, t.TempDir(), tiny(), nil)
	if plain.err != nil {
		t.Fatal(plain.err)
	}
	if len(plain.pages) >= len(m.Docs) {
		t.Fatalf("a saturated filter stored %d pages for %d documents: the test does not exercise false positives", len(plain.pages), len(m.Docs))
	}
	a := urlfilter.NewAudit(tiny())
	audited := crawlInto(t, context.Background(), siteConfig(base), t.TempDir(), a, a.FalsePositives)
	if audited.err != nil {
		t.Fatal(audited.err)
	}
	checkManifest(t, m, audited)
	if audited.stats.FalsePositives == nil || *audited.stats.FalsePositives == 0 {
		t.Errorf("audited crawl counted no false positives: %+v", audited.stats)
	}
	t.Logf("plain tiny filter stored %d of %d documents; audited crawl counted %d false positives",
		len(plain.pages), len(m.Docs), *audited.stats.FalsePositives)
}

// TestResumeAfterKill crawls in a child process (this test binary re-run),
// kills it with SIGKILL mid-crawl, resumes in-process on the same store and
// checks the union against the Manifest: nothing lost, nothing stored twice,
// and only the pages in flight at the kill fetched twice.
func TestResumeAfterKill(t *testing.T) {
	if os.Getenv("BLOOMCRAWL_CHILD_STORE") != "" {
		childCrawl(t)
		return
	}
	site := samplesite.NewWithOptions(samplesite.Options{SlowDelay: -1})
	base, stop, err := site.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := site.Manifest()
	dir := filepath.Join(t.TempDir(), "store")

	cmd := exec.Command(os.Args[0], "-test.run=^TestResumeAfterKill$", "-test.v")
	cmd.Env = append(os.Environ(), "BLOOMCRAWL_CHILD_STORE="+dir, "BLOOMCRAWL_CHILD_BASE="+base)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once the child has requested a third of the site's pages.
	deadline := time.Now().Add(120 * time.Second) // the child loads the gse dictionary first (slow under -race)
	for {
		reqs, _ := site.Requests()
		if len(reqs) >= 20 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("child made %d requests in 120s; output:\n%s", len(reqs), out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	before, _ := site.Requests()
	t.Logf("child killed after %d requests", len(before))

	cfg := siteConfig(base)
	r := crawlInto(t, context.Background(), cfg, dir, nil, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.stats.ResumedURLs == 0 || r.stats.ResumedQueue == 0 {
		t.Errorf("resume found %d URLs and %d queued; the kill came too late or too early", r.stats.ResumedURLs, r.stats.ResumedQueue)
	}
	checkManifest(t, m, r)
	checkSimilarIndex(t, dir, r) // written in each page's commit: complete across the kill

	// Only what was in flight at the kill may be fetched twice: at most
	// one page per child worker.
	var twice []string
	for u, n := range requestCounts(site) {
		if n > 1 && u != m.RobotsTxt && !isRedirectTarget(m, u) {
			twice = append(twice, u)
		}
	}
	sort.Strings(twice)
	if len(twice) > childConcurrency {
		t.Errorf("%d URLs fetched twice across the kill, want at most %d (in flight): %v", len(twice), childConcurrency, twice)
	}
}

const childConcurrency = 2

// childCrawl is the child side of TestResumeAfterKill: a slow, polite crawl
// that the parent kills.
func childCrawl(t *testing.T) {
	base := os.Getenv("BLOOMCRAWL_CHILD_BASE")
	cfg := siteConfig(base)
	cfg.Politeness.Concurrency = childConcurrency
	cfg.Politeness.PerHostParallelism = childConcurrency
	cfg.Politeness.Delay = configs.Duration(15 * time.Millisecond)
	r := crawlInto(t, context.Background(), cfg, os.Getenv("BLOOMCRAWL_CHILD_STORE"), nil, nil)
	t.Fatalf("child crawl finished before it was killed: %+v %v", r.stats, r.err)
}

func TestNewRejectsBadOptions(t *testing.T) {
	cfg := configs.Default()
	cfg.Seeds = []string{"http://127.0.0.1:1/"}
	set := NewSettings(cfg)
	f, _ := urlfilter.New(urlfilter.Options{Capacity: 100})
	db, err := storage.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"no store", Options{Settings: set}, "Store is required"},
		{"no deduper", Options{Settings: set, Store: db}, "Dedup is required"},
		{"no URL filter", Options{Settings: set, Store: db, Dedup: newDeduper(t)}, "URLFilter is required"},
	}
	for _, tc := range cases {
		if _, err := New(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	bad := configs.Default()
	bad.Seeds = []string{"ftp://example.com/"}
	_, err = New(Options{Settings: NewSettings(bad), Store: db, Dedup: newDeduper(t), URLFilter: f})
	if err == nil || !strings.Contains(err.Error(), "seeds") {
		t.Errorf("ftp seed: err = %v, want an error naming seeds", err)
	}
	if _, err := NewOptions(bad, Options{Store: db}, false); err == nil || !strings.Contains(err.Error(), "seeds") {
		t.Errorf("ftp seed: NewOptions err = %v, want an error naming seeds", err)
	}
}
