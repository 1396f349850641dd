package crawler

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// diskSpace is the part of *storage.DB the progress report reads: the
// free space on the store's disk.
type diskSpace interface {
	Space() (storage.Space, error)
}

// NewProgress returns a progress callback for Options.Progress and its
// period (Options.ProgressEvery): on a terminal (live) a line rewritten in
// place on w, the moment anything changes; otherwise an Info record
// "progress" on log every 10 seconds. Both add the free space on db's
// disk once it gets low (under twice the store's reserve).
func NewProgress(w io.Writer, db diskSpace, log *slog.Logger, live bool) (report func(Stats), every time.Duration) {
	if live {
		return func(s Stats) { fmt.Fprintf(w, "\r\033[K%s%s", s.ProgressLine(), lowDiskNote(db)) }, 0
	}
	return func(s Stats) {
		args := []any{"fetched", s.Fetched, "stored", s.Stored, "duplicates", s.Duplicates,
			"errors", s.Errors, "queued", s.Queued, "pages_per_s", fmt.Sprintf("%.0f", s.PagesPerSecond)}
		if sp, err := db.Space(); err == nil && sp.Low() {
			args = append(args, "disk_free", storage.FormatBytes(sp.Free), "stops_below", storage.FormatBytes(sp.Need()))
		}
		if s.FalsePositives != nil {
			args = append(args, "filter_false_positives", *s.FalsePositives)
		}
		if s.RefreshScheduled > 0 {
			args = append(args, "refreshed", s.Refreshed, "not_modified", s.NotModified, "changed", s.Changed,
				"refresh_due", s.RefreshDue, "behind_schedule", s.BehindSchedule)
		}
		if len(s.HostDelays) > 0 || s.Limited > 0 {
			args = append(args, "limited", s.Limited, "hosts_set_aside", s.HostsSetAside, "host_delays", s.paceNote())
		}
		if l := s.ClusterLease; l != nil {
			length, pending := clusterQueues(l)
			args = append(args, "cluster_partitions", fmt.Sprint(l.Held), "cluster_queue", length, "cluster_pending", pending,
				"cluster_leases_lost", l.LeasesLost, "cluster_renew_failures", l.RenewFailures)
		}
		if s.ClusterBadDocEntries > 0 {
			args = append(args, "cluster_bad_doc_entries", s.ClusterBadDocEntries)
		}
		log.Info("progress", args...)
	}, 10 * time.Second
}

// ProgressLine is the crawl's live progress in one line (no line ending):
// time, fetched, stored, duplicates, errors, queued and pages/s, then the
// filter's false positives, the refresh schedule and the cluster lease
// when there are any.
func (s Stats) ProgressLine() string {
	line := fmt.Sprintf("%6.0fs  fetched %d  stored %d  duplicates %d  errors %d  queued %d  %.0f pages/s",
		s.Seconds, s.Fetched, s.Stored, s.Duplicates, s.Errors, s.Queued, s.PagesPerSecond)
	if s.FalsePositives != nil {
		line += fmt.Sprintf("  filter FPs %d", *s.FalsePositives)
	}
	if s.RefreshScheduled > 0 {
		line += fmt.Sprintf("  refreshed %d  due %d  behind %d", s.Refreshed, s.RefreshDue, s.BehindSchedule)
	}
	if len(s.HostDelays) > 0 {
		line += "  slowed " + s.paceNote()
	}
	if l := s.ClusterLease; l != nil {
		length, pending := clusterQueues(l)
		line += fmt.Sprintf("  partitions %v  queue %d (%d pending)", l.Held, length, pending)
		if l.LeasesLost > 0 || l.RenewFailures > 0 {
			line += fmt.Sprintf("  leases lost %d  renew failures %d", l.LeasesLost, l.RenewFailures)
		}
	}
	return line
}

// paceNote names the slowest hosts and their delay ("a.com 2.5s, b.org
// 1s (+3 hosts)"; "set aside" for a host set aside).
func (s Stats) paceNote() string {
	var b strings.Builder
	for i, h := range s.HostDelays {
		if i == 2 {
			fmt.Fprintf(&b, " (+%d hosts)", len(s.HostDelays)-2)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		if h.SetAside {
			fmt.Fprintf(&b, "%s set aside", h.Host)
		} else {
			fmt.Fprintf(&b, "%s %s", h.Host, time.Duration(h.DelaySeconds*float64(time.Second)).Round(time.Millisecond))
		}
	}
	return b.String()
}

// clusterQueues sums the queue lengths and pending entries of the
// partitions a cluster node holds.
func clusterQueues(l *cluster.LeaseState) (length, pending int64) {
	for _, q := range l.Queues {
		length += q.Length
		pending += q.Pending
	}
	return length, pending
}

// lowDiskNote is what the live progress line adds when the store's disk
// gets low (under twice the reserve): "" otherwise.
func lowDiskNote(db diskSpace) string {
	sp, err := db.Space()
	if err != nil || !sp.Low() {
		return ""
	}
	return fmt.Sprintf("  disk %s free (stops below %s)", storage.FormatBytes(sp.Free), storage.FormatBytes(sp.Need()))
}

// WriteSummary writes the crawl's final summary to w, one counter a line
// (counters that stayed 0 and do not always matter are left out), and
// "store: dir" last unless dir is "".
func (s *Stats) WriteSummary(w io.Writer, dir string) {
	fmt.Fprintf(w, "crawl finished in %.1fs (%.0f pages/s)\n", s.Seconds, s.PagesPerSecond)
	fmt.Fprintf(w, "  fetched      %d\n", s.Fetched)
	fmt.Fprintf(w, "  stored       %d new documents\n", s.Stored)
	fmt.Fprintf(w, "  duplicates   %d (URLs mapped to a stored document)\n", s.Duplicates)
	s.writeIfAny(w)
	fmt.Fprintf(w, "  errors       %d\n", s.Errors)
	fmt.Fprintf(w, "  queued left  %d\n", s.Queued)
	if s.ClusterPartitions != nil {
		fmt.Fprintf(w, "  partitions   %v (cluster: held by this node at the end)\n", s.ClusterPartitions)
	}
	if s.ClusterBadDocEntries > 0 {
		fmt.Fprintf(w, "  bad log entries  %d (malformed cluster document log entries skipped; their IDs are in the log)\n", s.ClusterBadDocEntries)
	}
	if s.FalsePositives != nil {
		fmt.Fprintf(w, "  filter false positives  %d (URLs the filter called seen that were new: crawled anyway)\n", *s.FalsePositives)
	}
	if s.FilterStoreReads > 0 || s.FilterMemoryHits > 0 {
		fmt.Fprintf(w, "  filter store reads      %d (%d URLs looked up to confirm the filter's \"seen\"; %d confirmed in memory)\n", s.FilterStoreReads, s.FilterStoreKeys, s.FilterMemoryHits)
	}
	if s.Refreshed > 0 || s.RefreshScheduled > 0 {
		fmt.Fprintf(w, "  refreshed    %d (%d not modified, %d changed of which %d new versions, %d behind schedule; %d URLs on the refresh schedule)\n",
			s.Refreshed, s.NotModified, s.Changed, s.NewVersions, s.BehindSchedule, s.RefreshScheduled)
		if s.LastModDue > 0 {
			fmt.Fprintf(w, "               %d queued because a sitemap's lastmod was newer than their last fetch\n", s.LastModDue)
		}
	}
	if s.DiscoveryDelayMedian > 0 {
		fmt.Fprintf(w, "  discovery to fetch  median %.3fs, p99 %.3fs\n", s.DiscoveryDelayMedian, s.DiscoveryDelayP99)
	}
	if s.ResumedURLs > 0 || s.ResumedQueue > 0 {
		fmt.Fprintf(w, "  resumed from %d URLs already in the store and %d queued\n", s.ResumedURLs, s.ResumedQueue)
	}
	if dir != "" {
		fmt.Fprintf(w, "store: %s\n", dir)
	}
}

// writeIfAny writes the summary's lines of the counters shown only when
// they are not 0, in order.
func (s *Stats) writeIfAny(w io.Writer) {
	for _, l := range []struct {
		n      int64
		format string
	}{
		{s.Retries, "  retries      %d\n"},
		{s.Redirected, "  redirected   %d\n"},
		{s.NonHTML, "  non-HTML     %d (recorded, not parsed)\n"},
		{s.Robots, "  robots.txt   %d disallowed\n"},
		{s.NoIndex, "  noindex      %d (fetched, links followed, not stored)\n"},
		{s.Limited, "  limited      %d answers 429 or 503 (adaptive politeness slowed the host)\n"},
		{s.HostsSetAside, "  set aside    %d hosts (politeness.host_failures failures in a row: their URLs recorded as errors)\n"},
	} {
		if l.n > 0 {
			fmt.Fprintf(w, l.format, l.n)
		}
	}
	if s.Sitemaps > 0 {
		fmt.Fprintf(w, "  sitemaps     %d read, %d URLs listed\n", s.Sitemaps, s.SitemapURLs)
	}
}
