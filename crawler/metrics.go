package crawler

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// Collectors are the running crawl's counters for a Prometheus registry
// (crawl --serve adds them to /metrics): the URL filter's false positives
// and the store reads that confirm its "seen" answers (dedup.verify), the
// refresh counters, the discovery delay, and in cluster mode the leases and
// the queue of each partition held. Each reads c.Stats when collected.
func (c *Crawler) Collectors() []prometheus.Collector {
	counter := func(name, help string, v func(Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v(c.Stats())) })
	}
	gauge := func(name, help string, v func(Stats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return v(c.Stats()) })
	}
	return []prometheus.Collector{
		counter("bloomcrawl_crawl_filter_false_positives_total",
			`URLs the URL filter answered "seen" for that were new, crawled anyway (dedup.verify or --audit; 0 when neither counts them).`,
			func(s Stats) uint64 {
				if s.FalsePositives == nil {
					return 0
				}
				return *s.FalsePositives
			}),
		counter("bloomcrawl_crawl_filter_store_reads_total",
			`Store read batches made to confirm the URL filter's "seen" answers (at most one per page).`,
			func(s Stats) uint64 { return s.FilterStoreReads }),
		counter("bloomcrawl_crawl_filter_store_keys_total",
			`URLs looked up in the store to confirm the URL filter's "seen" answers.`,
			func(s Stats) uint64 { return s.FilterStoreKeys }),
		counter("bloomcrawl_crawl_pages_fetched_total", "URLs requested that got an HTTP response.",
			func(s Stats) uint64 { return uint64(s.Fetched) }),
		counter("bloomcrawl_crawl_refreshed_total", "Scheduled refreshes fetched (recrawl; any response).",
			func(s Stats) uint64 { return uint64(s.Refreshed) }),
		counter("bloomcrawl_crawl_not_modified_total", "Refreshes answered 304 Not Modified (conditional GET): nothing rewritten.",
			func(s Stats) uint64 { return uint64(s.NotModified) }),
		counter("bloomcrawl_crawl_changed_total", "Refreshes whose title or text changed: the stored page replaced by the new text.",
			func(s Stats) uint64 { return uint64(s.Changed) }),
		counter("bloomcrawl_crawl_new_versions_total", "Changed refreshes that were no near-duplicate of the stored text: new versions (the old one kept up to recrawl.keep_versions).",
			func(s Stats) uint64 { return uint64(s.NewVersions) }),
		counter("bloomcrawl_crawl_behind_schedule_total", "Refreshes fetched more than one interval after they were due.",
			func(s Stats) uint64 { return uint64(s.BehindSchedule) }),
		gauge("bloomcrawl_crawl_discovery_delay_median_seconds", "Median delay from a URL's discovery (its link queued in this run) to its fetch.",
			func(s Stats) float64 { return s.DiscoveryDelayMedian }),
		gauge("bloomcrawl_crawl_cluster_partitions_held", "Cluster mode: partitions this node holds a lease on (only their hosts are fetched here).",
			func(s Stats) float64 { return float64(len(s.ClusterPartitions)) }),
		counter("bloomcrawl_crawl_cluster_lease_renew_failures_total", "Cluster mode: lease rounds that failed (Redis unreachable or an error); the node stops after a lease TTL of them in a row.",
			func(s Stats) uint64 {
				if s.ClusterLease == nil {
					return 0
				}
				return uint64(s.ClusterLease.RenewFailures)
			}),
		counter("bloomcrawl_crawl_cluster_leases_lost_total", "Cluster mode: leases found expired or owned by another node when this node came to renew them.",
			func(s Stats) uint64 {
				if s.ClusterLease == nil {
					return 0
				}
				return uint64(s.ClusterLease.LeasesLost)
			}),
		newClusterQueueCollector(c),
		counter("bloomcrawl_crawl_limited_total", "Answers 429 or 503 (adaptive politeness raised the host's delay).",
			func(s Stats) uint64 { return uint64(s.Limited) }),
		counter("bloomcrawl_crawl_hosts_set_aside_total", "Hosts set aside after politeness.host_failures failed requests in a row (their URLs recorded as errors).",
			func(s Stats) uint64 { return uint64(s.HostsSetAside) }),
		&hostDelayCollector{c: c, desc: prometheus.NewDesc("bloomcrawl_crawl_host_delay_seconds",
			"Delay in force between two requests to a host, for the hosts whose delay is not politeness.delay or that are failing (the slowest 20).",
			[]string{"host"}, nil)},
		newRenderCollector(c),
		gauge("bloomcrawl_crawl_discovery_delay_p99_seconds", "99th percentile of the delay from a URL's discovery to its fetch.",
			func(s Stats) float64 { return s.DiscoveryDelayP99 }),
	}
}

// clusterQueueCollector exports, in cluster mode, the queue length and
// pending entries of each partition the node holds, labelled by
// partition.
type clusterQueueCollector struct {
	c               *Crawler
	length, pending *prometheus.Desc
}

func newClusterQueueCollector(c *Crawler) *clusterQueueCollector {
	return &clusterQueueCollector{c: c,
		length: prometheus.NewDesc("bloomcrawl_crawl_cluster_queue_length",
			"Cluster mode: entries in the stream of each partition this node holds (waiting or handed out, not yet acknowledged), read every lease round.",
			[]string{"partition"}, nil),
		pending: prometheus.NewDesc("bloomcrawl_crawl_cluster_queue_pending",
			"Cluster mode: entries of each partition this node holds that were handed out and not yet acknowledged.",
			[]string{"partition"}, nil)}
}

func (q *clusterQueueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- q.length; ch <- q.pending }

func (q *clusterQueueCollector) Collect(ch chan<- prometheus.Metric) {
	l := q.c.Stats().ClusterLease
	if l == nil {
		return
	}
	for _, p := range l.Queues {
		label := strconv.Itoa(p.Partition)
		ch <- prometheus.MustNewConstMetric(q.length, prometheus.GaugeValue, float64(p.Length), label)
		ch <- prometheus.MustNewConstMetric(q.pending, prometheus.GaugeValue, float64(p.Pending), label)
	}
}

// hostDelayCollector exports the delay in force of the hosts Stats lists
// (HostDelays), labelled by host.
type hostDelayCollector struct {
	c    *Crawler
	desc *prometheus.Desc
}

func (h *hostDelayCollector) Describe(ch chan<- *prometheus.Desc) { ch <- h.desc }

func (h *hostDelayCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range h.c.Stats().HostDelays {
		ch <- prometheus.MustNewConstMetric(h.desc, prometheus.GaugeValue, p.DelaySeconds, p.Host)
	}
}
