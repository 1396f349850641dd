// Package cluster owns the state several bloomcrawl nodes share in Redis
// when they crawl as one (crawl --cluster): which node fetches which hosts,
// the cluster-wide URL filter, the queue of URLs to fetch, the document log
// that orders the content-dedup decisions, and when the crawl is over. It is
// the shared state of the crawler's Redis backend (crawler/redis.go); each
// node keeps its pages in its own store.
//
// Hosts map by registrable domain (publicsuffix) to a fixed number of
// partitions. A partition is fetched only by the node holding its lease
// (SET NX PX with a fencing token, the partition's fence counter
// incremented at each acquisition; renewed by the owner through a
// compare-and-pexpire script every LeaseTTL/3), so per-host politeness
// holds across nodes. Live nodes
// register in a sorted set by heartbeat; each holds about partitions/live
// (rounded up) and drains the rest (stops reading them, releases each once
// none of its entries is in flight here), so nodes joining or leaving
// rebalance without two nodes fetching one host.
//
// Each partition has a stream with one consumer group: a URL found on any
// node goes to its partition's stream. The seen-state (seen.go) is exact:
// each URL's 64-bit fingerprint in a small intset-encoded Redis set, one
// of its partition's buckets, in levels that double as the partition
// fills (about 9 bytes per URL); each node caches the fingerprints it has
// offered, so a URL reaches Redis at most once per node. An admit script
// per partition tests and adds the fingerprints and appends the new URLs
// to the stream in one step, so no URL is queued twice.
//
// Group commit (commit.go): what the node's workers produce (AdmitAsync,
// AckAfter, AppendDoc) is sent by one goroutine in rounds, one pipeline
// each, at most one every 2 ms: one admit script and one ack script
// (variadic XACK/XDEL) per partition, one XADD for the round's documents
// and the log read on. An entry is acknowledged only in a round after
// the admission of its page's links returned, and only after its page
// is committed to the local store.
//
// A node that dies stops renewing: its leases expire after LeaseTTL, other
// nodes take the partitions and XAUTOCLAIM the entries idle longer than
// LeaseTTL, so the pages it had in flight are fetched again (at most those
// are fetched twice). A node that only seemed dead (paused, cut off)
// commits nothing of a lease it lost (Confirm: the lease is trusted
// locally until its last renewal was sent + LeaseTTL - LeaseTTL/10, then
// renewed under the entry's token; the ack script acknowledges only
// entries still pending under the node's own consumer).
//
// The document log (docs.go: DocEntry, AppendDoc, ReadDocs; one stream,
// key PREFIX:{docs}:log) orders the content-dedup decisions of the whole
// crawl: every page a node judges is appended with its signature, and
// every node replays the log in order through its own deduper, so that
// near-duplicates fetched by different nodes get one docId and one
// stored page (first in the log wins). Each node saves the entries it
// applied to its own store (Options.History, history.go) and the log is
// trimmed to what every live node saved, so Redis holds only its tail; a
// node that starts replays its own copy, then the tail, and gets history
// trimmed past its copy from a live node through Redis (transfer.go).
// The package carries the entries; the crawler decides.
//
// A continuous crawl's refresh schedule (schedule.go) is the partitions':
// a sorted set per partition (URL → next due time) and a hash of the
// crawler's records of the URLs' last fetches. A node writes a URL's next
// refresh before acknowledging its entry (ScheduleAfter, batched like the
// group commit); the owner of a partition moves the due URLs into its
// stream in one fenced script (QueueDue), so the schedule moves with the
// lease and a dead node loses none of it.
//
// The crawl is over (Finished) when every partition's count of URLs
// acknowledged equals its count of URLs queued.
//
// A crash of Redis's machine under appendfsync everysec loses its last
// second or two of writes. Each node keeps a journal of what it wrote on
// the per-page path in the last few seconds (journal.go) and, finding a
// new Redis process (run_id) on a new connection, offers it again with
// idempotent scripts before that connection is used.
//
// # Redis Cluster
//
// Options.URL redis+cluster://HOST:PORT[?addr=HOST:PORT...] runs the same
// code on a Redis Cluster (a go-redis ClusterClient; ParseURL). Every key
// of partition N carries the hash tag {p:N}, so one partition's keys live
// in one slot and each script (admit, ack, renew, release) touches one
// slot. The global keys (PREFIX:meta, the live-node set PREFIX:nodes) are
// each read and written alone, by single-key commands or a script on that
// key only (the heartbeat takes Redis's TIME inside the script, so all
// nodes use the clock of the one shard holding the set). Pipelines span
// slots (a page's admit scripts, the feeder's reads, the end-of-crawl
// counters): the cluster client splits them per shard and sends the parts
// in parallel. Scripts are loaded on every shard at Open; a shard that
// lost them (restarted, replica promoted) is answered NOSCRIPT, and the
// script is sent again by source (Script.Run; in Admit's pipeline, per
// failed command).
package cluster
