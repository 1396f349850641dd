// Package cluster owns the state several bloomcrawl nodes share in Redis
// when they crawl as one (crawl --cluster): which node fetches which hosts,
// the cluster-wide URL filter, the queue of URLs to fetch, the document log
// that orders the content-dedup decisions, and when the crawl is over. It is
// the shared state of the crawler's Redis backend (crawler/redis.go); each
// node keeps its pages in its own store.
//
// Hosts map by registrable domain (publicsuffix) to a fixed number of
// partitions. A partition is fetched only by the node holding its lease
// (SET NX PX, renewed by the owner through a compare-and-pexpire script
// every LeaseTTL/3), so per-host politeness holds across nodes. Live nodes
// register in a sorted set by heartbeat; each holds about partitions/live
// (rounded up) and drains the rest (stops reading them, releases each once
// none of its entries is in flight here), so nodes joining or leaving
// rebalance without two nodes fetching one host.
//
// Each partition has a stream with one consumer group: a URL found on any
// node goes to its partition's stream. The URL filter is Bloom bits in
// Redis, one string per partition holding generations that double in size
// and halve their false-positive rate as the partition fills (so a
// partition that gets one big site's URLs keeps the error bound past
// Options.Capacity); Admit tests and sets a URL's bits and
// appends it to the stream in one Lua script per partition (all of a
// page's partitions in one pipeline: one round trip per page), so no URL
// is queued twice. With Options.Verify a "seen" answer of the bits is
// confirmed in the same script against an exact set of the partition's
// queued URLs, so a false positive of the bits is queued (and counted)
// instead of lost. A node acknowledges an entry (Ack: XACK, XDEL, count)
// only after its page is committed to its local store.
//
// A node that dies stops renewing: its leases expire after LeaseTTL, other
// nodes take the partitions and XAUTOCLAIM the entries idle longer than
// LeaseTTL, so the pages it had in flight are fetched again (at most those
// are fetched twice).
//
// The document log (DocEntry, LogDoc, ReadDocs; one stream, key
// PREFIX:{docs}:log) orders the content-dedup decisions of the whole
// crawl: every page a node judges is appended with its signature, and
// every node replays the log in order through its own deduper, so that
// near-duplicates fetched by different nodes get one docId and one
// stored page (first in the log wins). The package carries the entries;
// the crawler decides.
//
// The crawl is over (Finished) when every partition's count of URLs
// acknowledged equals its count of URLs queued.
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
