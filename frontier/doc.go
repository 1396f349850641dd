// Package frontier decides what bloomcrawl fetches next.
//
// A Frontier holds per-host FIFO queues of URLs, hands them out breadth-first
// (lowest sequence number first, and sequence numbers are assigned in
// discovery order) while keeping each host within its parallelism and delay,
// and tests every candidate URL against a URL filter before it is queued, so a
// URL is queued at most once per crawl.
//
// A crawl on one node queues through it (the crawler's local backend,
// crawler/local.go). A cluster node feeds it the URLs of the partitions it
// holds, with a URL filter that admits everything (package cluster has
// already tested them), so that per-host politeness holds there too
// (crawler/redis.go).
//
// The frontier owns the URL filter and the per-host and total accounting that
// goes with it: a URL enters both through Reserve (a discovered link),
// Claim (a URL recorded without being queued, such as a redirect alias) or
// Restore and Resume (what an interrupted crawl had recorded or queued).
//
// # Persistence
//
// The frontier does not write to disk itself. Queueing is two-phase so that the
// caller can persist new entries in the same atomic store commit as the page
// they were found on:
//
//  1. Reserve tests candidates against the URL filter and assigns sequence
//     numbers to the new ones (they are not yet handed out);
//  2. the caller commits them (and the page) to its store;
//  3. Publish makes them available to Next (or Cancel drops them).
//
// Next hands out an entry; Done releases it once its result is committed.
//
// # Exact "seen" answers
//
// A Bloom filter's "seen" can be wrong (a false positive), and a crawler
// that believes it never fetches that URL. With Options.Confirm the
// frontier believes "not seen" at once (no lookup: the common case for new
// links) and confirms "seen": first against the URLs it holds (admitted,
// commit not yet published) and the URLs published or confirmed last
// (kept exactly, their bytes compared, in a cache of Options.RecentBytes;
// a crawl's default, DefaultRecentBytes, is 128 MiB, about 3,200,000 URLs
// with 20-byte paths), then against the
// store by key, one batch per Reserve. A URL the store
// does not know is admitted and counted in Stats.FalsePositives. Holding
// every admitted URL until Publish is what keeps a URL reserved by one
// worker from being admitted again by another before its commit.
//
// # Memory
//
// Only a bounded window of the queue (Options.Window entries) lives in
// memory. Entries published while the window is full, or while older
// entries wait in the store, stay in the store only and are read back, in
// sequence order, through the queueStore's QueueScan once an eighth of the
// window has drained (or at once when no entry in memory can be handed
// out): no entry is handed out before one queued earlier, so a crawl
// larger than the window stays breadth-first and a URL's Depth is its
// distance from a seed. Resume starts a frontier on a store that already
// holds pending entries.
//
// # Politeness
//
// Each host gets at most Options.PerHostParallelism entries in flight and
// Options.Delay between two hand-outs. SetHostDelay gives one host a longer
// delay (robots.txt's Crawl-delay): that host then gets one entry at a time,
// each handed out at least the delay after the previous one's Done. With
// Options.HoldNewHosts a host gets one entry at a time until SetHostDelay
// has been called for it, so a delay learnt while its first entry is
// fetched holds from the second on. Defer puts an entry handed out back
// at the head of its host's queue and holds the whole host until a given
// time (a host whose robots.txt cannot be read yet). Entries carry Hints (what a sitemap
// said about the URL) that the frontier passes along without reading.
//
// # Caveats
//
// Breadth-first order is approximate: entries are ordered by sequence number,
// which is discovery order, and concurrent workers discover out of depth
// order at the edges of a level. Per-host politeness is exact.
package frontier
