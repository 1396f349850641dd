package crawler

import (
	"sync/atomic"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
)

// Stats are a crawl's counters. Counters cover this run only, except
// Resumed* which describe what the store held when the run started.
type Stats struct {
	Fetched    int64 `json:"fetched"`     // page URLs requested that got an HTTP response (not robots.txt, not sitemaps)
	Stored     int64 `json:"stored"`      // new documents stored
	Duplicates int64 `json:"duplicates"`  // pages mapped to an existing document
	Errors     int64 `json:"errors"`      // network errors, HTTP >= 400, undecodable pages
	NonHTML    int64 `json:"non_html"`    // responses recorded and skipped for their content type
	Robots     int64 `json:"robots"`      // URLs not fetched because robots.txt disallows them
	Redirected int64 `json:"redirected"`  // fetches that followed at least one redirect
	Retries    int64 `json:"retries"`     // requests tried again after a transient failure (fetch.retries)
	Queued     int64 `json:"queued_left"` // entries pending in the queue
	// NoIndex are pages fetched, their links followed, not stored (robots
	// meta / X-Robots-Tag noindex); Sitemaps the sitemap files read (any
	// outcome, scope.sitemaps; not a guessed /sitemap.xml that is
	// missing) and SitemapURLs the URLs they listed (before scope and the
	// URL filter).
	NoIndex     int64 `json:"noindex"`
	Sitemaps    int64 `json:"sitemaps"`
	SitemapURLs int64 `json:"sitemap_urls"`
	// FalsePositives are the URL filter's false positives: "seen" answers
	// for URLs never admitted before, counted with dedup.verify (the store
	// did not know them: they were crawled anyway) or an audited filter
	// (NewOptions with audit, crawl --audit: the shadow set disagreed:
	// crawled anyway); nil with neither.
	FalsePositives *uint64 `json:"filter_false_positives,omitempty"`
	// FilterStoreReads and FilterStoreKeys count, with dedup.verify, the
	// store read batches (at most one per page) and the URLs looked up in
	// them to confirm the filter's "seen" answers; the others were
	// confirmed in memory (URLs admitted recently), FilterMemoryHits of
	// them (in flight, or in the cache of dedup.verify_cache_bytes).
	FilterStoreReads uint64 `json:"filter_store_reads,omitempty"`
	FilterStoreKeys  uint64 `json:"filter_store_keys,omitempty"`
	FilterMemoryHits uint64 `json:"filter_memory_hits,omitempty"`
	// Continuous crawling (recrawl): Refreshed are the scheduled refreshes
	// fetched (any response); BehindSchedule those fetched more than one
	// interval after they were due (the host cannot keep up);
	// RefreshScheduled the URLs on the refresh schedule and RefreshDue
	// those due and not yet queued.
	Refreshed        int64 `json:"refreshed"`
	NotModified      int64 `json:"not_modified"` // refreshes answered 304 Not Modified (conditional GET): nothing rewritten
	Changed          int64 `json:"changed"`      // refreshes whose title or text changed: the stored page replaced by the new text
	NewVersions      int64 `json:"new_versions"` // changes that were no near-duplicate of the stored text: new versions (the rest of Changed are edits in place)
	BehindSchedule   int64 `json:"behind_schedule"`
	LastModDue       int64 `json:"lastmod_due,omitempty"` // refreshes queued because a sitemap's lastmod was newer than the URL's last fetch
	RefreshScheduled int   `json:"refresh_scheduled,omitempty"`
	RefreshDue       int   `json:"refresh_due,omitempty"`
	// DiscoveryDelayMedian and DiscoveryDelayP99 are the delay, in
	// seconds, from a URL's discovery (its link queued in this run) to its
	// fetch, within 5%; 0 before any such fetch.
	DiscoveryDelayMedian float64       `json:"discovery_delay_median_s"`
	DiscoveryDelayP99    float64       `json:"discovery_delay_p99_s"`
	ResumedURLs          int64         `json:"resumed_urls,omitempty"`  // URL records already in the store
	ResumedQueue         int64         `json:"resumed_queue,omitempty"` // entries pending at start
	Elapsed              time.Duration `json:"-"`
	Seconds              float64       `json:"seconds"`
	PagesPerSecond       float64       `json:"pages_per_second"` // URLs done (any outcome) per second of this run
	// ClusterPartitions are, in cluster mode, the partitions this node
	// holds a lease on now (only their hosts are fetched here).
	ClusterPartitions []int `json:"cluster_partitions,omitempty"`
	// ClusterLease is, in cluster mode, this node's lease state: renew
	// failures, leases lost, and the queues of the partitions it holds
	// (read every lease round).
	ClusterLease *cluster.LeaseState `json:"cluster_lease,omitempty"`
	// Adaptive politeness (throttle.go): Limited are the 429 and 503
	// answers; HostsSetAside the hosts set aside after
	// politeness.host_failures failures in a row; HostDelays the hosts
	// whose delay is not politeness.delay, or that are failing (the
	// slowest 20, slowest first).
	Limited       int64      `json:"limited"`
	HostsSetAside int64      `json:"hosts_set_aside"`
	HostDelays    []HostPace `json:"host_delays,omitempty"`
	// ClusterBadDocEntries are, in cluster mode, the malformed entries of
	// the document log this node skipped (each logged with its ID).
	ClusterBadDocEntries int64 `json:"cluster_bad_doc_entries,omitempty"`
	// Render counts the pages rendered in a browser and why (absent
	// with fetch.render never and no render rules).
	Render *RenderStats `json:"render,omitempty"`
}

// counters are a crawl's event counters, safe for concurrent use.
type counters struct {
	fetched, stored, dups, errs, nonHTML, robots, redirected, retries, queued, done atomic.Int64
	notModified, changed, versions                                                  atomic.Int64
	noindex, sitemaps, sitemapURLs                                                  atomic.Int64
	refreshed, behind, lastmodDue                                                   atomic.Int64
}

// stats returns the counters as Stats (the fields counted here only).
func (k *counters) stats() Stats {
	return Stats{
		Fetched: k.fetched.Load(), Stored: k.stored.Load(), Duplicates: k.dups.Load(),
		Errors: k.errs.Load(), NonHTML: k.nonHTML.Load(), Robots: k.robots.Load(),
		Redirected: k.redirected.Load(), Retries: k.retries.Load(), Queued: k.queued.Load(),
		NoIndex: k.noindex.Load(), Sitemaps: k.sitemaps.Load(), SitemapURLs: k.sitemapURLs.Load(),
		Refreshed: k.refreshed.Load(), BehindSchedule: k.behind.Load(), NotModified: k.notModified.Load(),
		Changed: k.changed.Load(), NewVersions: k.versions.Load(), LastModDue: k.lastmodDue.Load(),
	}
}
