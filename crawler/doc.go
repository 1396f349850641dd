// Package crawler runs bloomcrawl's crawl pipeline: it takes URLs from the
// frontier, fetches them with Colly, parses them with goquery, asks the
// content deduper whether each page is a new document, and stores the result
// together with the page's new links in one atomic store commit.
//
// # Pipeline
//
// For each URL handed out by the queue (the frontier's per-host queues,
// breadth-first):
//
//  1. fetch with a shared colly.Collector, synchronously from a fixed pool of
//     workers (Politeness.Concurrency); colly's visited set is off because
//     the frontier already deduplicates; robots.txt, when
//     politeness.obey_robots, read by the crawler itself (package robots,
//     RFC 9309; before the host's first page, again after 24 hours; tested
//     on the request target colly sends; a 4xx allows everything, a 5xx,
//     429 or network error disallows the whole host, whose URLs wait in the
//     frontier until a retry succeeds; its Crawl-delay becomes the host's
//     frontier delay, capped by politeness.max_crawl_delay; see
//     docs/robots.md); redirects followed inline, each target checked
//     as a discovered link before it is requested (checkRedirect): the
//     count (fetch.max_redirects) and loops, canonicalization and scope,
//     the store (a target already recorded with a document is not
//     requested: the URL maps to that document), robots.txt of the
//     target's host (read first if not known; a disallowed target is
//     recorded with reason "robots"), and the target host's politeness:
//     the entry hops to that host in the queue (urlQueue.hop,
//     frontier.Hop), holding one host at a time; the chain is recorded;
//     network errors and
//     408/429/500/502/503/504 tried again fetch.retries times (backoff
//     doubling from Options.RetryBackoff, or Retry-After; never sooner than
//     politeness.delay; a stopping crawl abandons the wait and leaves the
//     URL queued);
//  2. non-HTML responses (by Content-Type, fetch.content_types) are aborted
//     after the headers and recorded; bodies larger than
//     fetch.max_body_bytes are refused, by Content-Length or once reading
//     passes the limit (never stored cut);
//  3. decode to UTF-8 (header charset, <meta>, BOM, or a byte-level guess for
//     undeclared GBK/GB18030/Big5 pages) and extract title, main text
//     (script, style, nav, header, footer, aside and forms removed; <main> or
//     a single <article> preferred) and links (see Extract);
//  4. robots meta / X-Robots-Tag (politeness.obey_meta_robots): noindex
//     records the URL with reason "noindex" and stores nothing, nofollow
//     drops the page's links; otherwise contentdedup's CheckCanonical (the
//     page's <link rel=canonical>, see there): a new docId or the docId of a
//     duplicate;
//  5. canonicalize links (rel=nofollow ones only with
//     politeness.follow_nofollow_links) and the declared canonical URL
//     (urlfilter), check scope, test-and-add them to the URL filter and
//     reserve queue entries (frontier);
//  6. with Options.Archive (crawl --warc): the fetch's HTTP exchanges as
//     the transport received them (archive.Recorder wraps it), with the
//     verdict of step 4, go to the WARC writer before the commit;
//  7. one storage.Commit: the page (or the URL's record), every URL of the
//     redirect chain as an alias of the document, the new queue entries, the
//     dequeue of this URL and the trace of the URLs tested (in cluster
//     mode the new links go to the cluster first and the entry is
//     acknowledged after the commit).
//
// Because of that single commit a crash (kill -9) loses at most the pages in
// flight: a stored page's outlinks are always queued, and a queued URL is
// dequeued only when its result is stored.
//
// # Sitemaps
//
// Sitemaps (scope.sitemaps; by default the robots.txt Sitemap: lines and
// /sitemap.xml of each seed host, queued with the seeds, and of every
// other in-scope host once the crawl enters it: when its robots.txt is
// first read, once per host and run, hostSitemaps) are frontier entries
// marked as sitemaps: fetched with the crawl's politeness, parsed by
// ParseSitemap (index files, gzip, the protocol's limits; their redirects
// checked as a page's: checkSitemapRedirect), and their URLs
// reserved and committed like a page's links (in chunks of 10,000, the last
// with the sitemap's own URL record and dequeue). lastmod and Google News
// fields travel with the queue entry to the URL record.
//
// # Resume
//
// Run on a store that holds URL records or queue entries continues that
// crawl: the content-dedup index is rebuilt from the stored fingerprints and
// URL records, the URL filter from every URL fetched or queued (exact: every
// URL the old run added to its filter is one of those), and the frontier from
// the stored queue.
//
// # Continuous crawling
//
// With recrawl.continuous the frontier never reports exhaustion (Run ends
// only when ctx does) and a refresher (refresh.go) queues pages again when
// they fall due: the seeds every recrawl.seeds_every, pages matching a
// recrawl.rules entry at its interval, each due its URL record's fetch time
// + interval + a per-URL stagger (so the schedule is rebuilt from the store
// on start). A refresh is a conditional GET with the record's ETag and
// Last-Modified; a 304 writes nothing; a changed page keeps its docId and
// replaces the stored page (storage Commit.Update), with the change time in
// its URL record (sameDoc). A change that is a near-duplicate of the stored
// text is an edit in place (counted in the record's Edits); any other is a
// new version: the replaced one is kept as an old version (storage
// Commit.Version) and those beyond recrawl.keep_versions are deleted, in
// the same commit.
//
// # Wiring
//
// New takes components and settings, never a configs.Config: Options
// holds the store, the content deduper, the URL filter (or a cluster
// node), the archive and the logger, and Settings the sections the
// pipeline reads (seeds, scope, politeness, fetch, recrawl, and
// dedup.verify). components.go is the one place a configs.Config becomes
// them (NewOptions, NewSettings, NewURLFilter, NewDeduper, StoreOptions,
// ArchiveOptions, ClusterOptions); the commands, the lab and the tests
// all build their crawls there. OpenComponents (open.go) opens what a
// crawl of one config needs with them — the store, the deduper, the
// cluster node, the WARC writer — and its Close closes them in order (the
// crawl and demo commands run their crawls so).
//
// # One core, two backends
//
// The pipeline is written once; what differs between one node and a node
// of a cluster crawl sits behind three interfaces declared in this package
// (backend.go), picked once by New (newBackend):
//
//   - urlQueue: where URLs are queued, taken, committed with their page and
//     finished. localQueue (local.go) is the frontier over the store's
//     queue; redisQueue (redis.go) takes the entries of the partitions
//     this node holds a lease on (cluster.Node.Take) into the frontier,
//     which keeps per-host politeness, offers the seeds and every link
//     found to the cluster (Admit) before the local commit, and
//     acknowledges an entry once its page is committed (Ack).
//   - urlFilterState: the URL filter's state beyond the queue's own tests
//     (redirect aliases, resume, false positives). localFilter is the URL
//     filter (confirmed against the store with dedup.verify); redisFilter
//     the cluster's Bloom bits (confirmed exactly by the cluster).
//   - documents: the document decisions, first seen wins. localDocs is the
//     content deduper, rebuilt from the store on resume; redisDocs goes
//     through the cluster's document log (clusterdedup.go): every page
//     judged is appended to it and decided by replaying the log in order
//     through the local deduper, so every node gives the verdicts one node
//     would on the log's order; a duplicate of a document another node
//     stored names that node in its URL record (storage URLRecord.Node).
//     The deduper is rebuilt from the log on start, never from the local
//     store.
//
// Crawler.process owns a queue entry's life and finishes it in one place,
// whatever the outcome. Both backends support every crawl option but
// dedup.filter, which a cluster refuses (CheckCluster): its seen-state is
// exact.
//
// # Access and adaptive politeness
//
// access.go: the proxy of each request (fetch.proxy_rules, fetch.proxy
// and fetch.no_proxy, else the environment's), the headers and basic auth
// of each host (fetch.headers, fetch.host_rules) added by a transport
// layer on a copy of the request, so the HTTP client never carries them to
// a redirect's host, and the cookie jar, saved in the store's meta
// namespace (key "crawl/cookies") and loaded by Run before the first
// fetch. throttle.go: every round trip tells the host's pace what
// happened (429/503 and Retry-After, other 5xx, no response, latency);
// the delay goes to the frontier (SetHostDelay, Pause), and a host whose
// requests failed politeness.host_failures times in a row is set aside
// (frontier.Drain): its URLs are recorded as errors, reason "host_failing".
// See docs/access.md.
//
// # Progress
//
// Options.Progress receives the counters (Stats) while the crawl runs;
// NewProgress makes the callback the crawl command uses (a line rewritten in
// place on a terminal, Stats.ProgressLine, or a log record every 10 seconds)
// and Stats.WriteSummary prints the final summary. Crawler.Collectors export
// the same counters to a Prometheus registry (crawl --serve's /metrics).
//
// # Caveats
//
//   - A redirect whose target is queued but not yet fetched fetches the
//     target twice (once through the redirect, once on its own); content
//     dedup maps both. A target already fetched is not requested again.
//   - A redirect hop waits for its target host's politeness with the
//     worker held: many redirects into one slow (Crawl-delay) host can
//     keep several workers waiting on it. A redirect to a host whose
//     robots.txt is unreachable puts the entry back in its own host's
//     queue, which is held until that robots.txt is tried again; the
//     redirecting URL is then requested again.
//   - A redirect chain with more than one new URL writes the extra aliases in
//     their own commits before the page's commit; a crash between them leaves
//     aliases naming a docId that is not stored.
//   - Outside a continuous crawl's refresh schedule (recrawl.rules,
//     recrawl.seeds_every; refresh.go) every URL is fetched once per store
//     (dedup.recrawl_window only sets how long the chain filter remembers
//     a URL); a sitemap is read once per store too, unless a rule
//     matches its URL: then it is read again at that interval, and a URL
//     it lists with a lastmod newer than the URL's last fetch is refreshed
//     at once (queueModified). In cluster mode the schedule is the
//     partitions', in Redis (redisrefresh.go).
//   - With politeness.obey_robots off, hosts beyond the seeds contribute
//     no sitemaps (their robots.txt, which names them, is not read).
package crawler
