// Package storage is bloomcrawl's page store, and the only package that
// imports Badger (github.com/dgraph-io/badger/v4). It owns the key schema,
// the record encodings, the secondary indexes, the queries, and the
// persisted state of the other packages (frontier queue, URL filter
// snapshots, URL trace, fingerprint list for the dedup index rebuild).
//
// # Basics
//
// Open a store with [Open] and close it with [DB.Close]. Everything a
// crawler learns about one fetched URL goes into the store with one
// [DB.Commit], which applies the page record, its URL mapping, its index
// entries, frontier changes and trace in a single Badger transaction: all
// of it is visible after Commit returns, or none of it is.
//
// A *DB is safe for concurrent use by multiple goroutines.
//
// # Reading
//
// Point lookups ([DB.Page], [DB.PageByURL], [DB.URLs], [DB.GetMeta]) are
// single reads. Scans take a context first ([DB.Stats], [DB.Check],
// [DB.List], [DB.Export], [DB.QueueLen], [DB.ForEachURL],
// [DB.ForEachFingerprint], [DB.ForEachTrace]) and stop with ctx.Err()
// when it is done; [DB.QueueScan], the frontier's bounded batch read, is
// the one without. Errors wrap the package's sentinels ([ErrNotFound],
// [ErrBadCursor], [ErrCorrupt], ...): test them with errors.Is.
//
// # Document ids and the page view
//
// [DocID] is the one document-id type: contentdedup assigns the number,
// this package keys every record by it, [DocID.String] prints it as 16
// lowercase hex digits and [ParseDocID] reads that form back (or 0x-hex;
// nothing else), for the command line and the HTTP API alike.
// [PageView] and [URLView] are the one JSON shape of a page and of a URL
// record, printed by `bloomcrawl query --json`, by [DB.Export] and by the
// HTTP API. Without --json, query prints the text views beside them
// (text.go: [URLRecord.WriteText], [Page.WriteText], [Stats.WriteText]);
// the answers of its subcommands ([URLAnswer], [Doc], [DocURLs],
// [SimilarAnswer], [ListAnswer], [CheckView]) marshal to its JSON and write
// its text.
//
// # Key schema (format version 1)
//
// Every key begins with a one-byte namespace. docIds and sequence numbers
// are 8-byte big-endian so that keys sort numerically.
//
//	!version                   format version (uint32 big-endian); written when the store is created
//	!seq/queue, !seq/trace     Badger sequences (leases) for queue and trace numbering
//	p <docID>                  page record (metadata uncompressed; text and HTML zstd-compressed)
//	f <docID>                  fingerprint entry: titleFP, contentFP, flags, canonical URL (no body)
//	u <url>                    URL record: every fetched URL → its docId, duplicate flag and reason
//	d <docID> <url>            docId → URLs index (every URL record whose DocID is docID)
//	c <url> 0x00 <docID>       page URL index (pages in URL order; list by prefix)
//	h <host> 0x00 <url> 0x00 <docID>  host index (list by host, per-host counts)
//	t <unixnano> <docID>       fetch-time index (list by time range)
//	q <seq>                    pending frontier queue entry
//	e <url>                    queued mark: the seq the URL was queued at, written with the queue
//	                           entry and kept after it is dequeued ([DB.Known] reads it;
//	                           !index/queued marks a store that has one for every queued URL;
//	                           older stores get them once, when opened)
//	r <seq>                    URL trace chunk (zstd-compressed, newline-separated URLs)
//	m <key>                    caller metadata below 256 KiB (PutMeta/GetMeta: crawl state)
//	b <key>                    reference (SHA-256, size) to a meta value of 256 KiB or more,
//	                           kept as the file DIR/blobs/<sha256>.blob (filter snapshots)
//	s <key>                    seen-record of a consumer key (package seen's value), with Badger's TTL
//	w <docID>                  similar pages: the page's MinHash band keys and signature (optional)
//	n <band> <docID>           similar pages: band key → pages (written with w, in the page's transaction)
//	v <docID> <n>              old version n (4-byte big-endian) of a page: its page record as it was, without
//	                           HTML, FetchedAt = when that version was first fetched (Commit.Version)
//	x <seq>                    a fetch's raw HTTP exchanges (store.keep_raw; opaque, zstd-compressed), seq =
//	                           write time in ns, increasing: PutRaw/ForEachRaw (raw.go)
//	l <key>                    a cluster node's copy of the crawl's document log: chunks opaque here, in key
//	                           order; !doclog is what they cover, written with them (doclog.go)
//
// Every page has exactly one p, f, c, h and t entry, written in the same
// transaction; [DB.Check] verifies that invariant.
//
// # Policies
//
// First seen wins: a Commit's Page never overwrites a page record; only an
// explicit Commit.Update (a continuous crawl's refresh that found the page
// changed) replaces a page record with a newer version, keeping its
// fingerprint and index entries. With Commit.Version the replaced record
// is kept as an old version (v entry, without its HTML) and the versions
// beyond the number to keep are deleted, all in the update's transaction:
// after a crash the store has either the old page and its versions or
// the new page, the old one as a version and the trimmed list
// ([DB.Versions], [DB.PageVersion]). A Commit whose Page
// carries a DocID that is already stored keeps the stored page and records
// the new URL as a duplicate of it, with Reason [ReasonExistingDoc]; no
// error is returned. A URL record, by contrast, describes the latest fetch
// of its URL (with its cache validators, and for a refreshed page the last
// change time and version count) and is replaced by a later Commit for the
// same URL.
//
// A URL record may name a DocID whose page is not stored yet (a duplicate
// detected while the original is still in flight): the record is kept,
// and [DB.PageByURL] returns it together with an error wrapping
// [ErrNotFound] until the page arrives. [DB.Check] counts such references.
//
// # Badger options
//
// Chosen for a crawler's write-heavy, append-mostly load (see
// [Options] for the knobs that are exposed):
//
//   - ValueThreshold 1 KiB: page bodies (typically 5–30 KiB compressed) go
//     to the value log, so the LSM tree holds only keys and the small
//     index, URL and fingerprint records; compactions stay cheap and
//     key-only scans (Stats, ForEachFingerprint) never read page bodies.
//   - No block compression for the LSM tables; page text and HTML are
//     compressed by this package with zstd before they are written. A
//     table builder holds a whole table in memory until it is written, and
//     with compression it holds the compressed blocks besides the raw ones
//     and fills a table to its target size in compressed bytes (2-3 times
//     as many raw bytes: URL keys compress well). Badger pools up to 8 of
//     those allocators while it keeps compacting, on the Go heap: at the
//     highest heap of a 500,000-page synthetic crawl they held 279 of 400
//     MiB with ZSTD level 1. Without compression (bench synthetic, 500k
//     pages) RssAnon peaked at 398 instead of 679 MB, CPU per page fell
//     by 15% (no zstd when compacting, none when a point read misses the
//     block cache), and the store took 8.5% more disk (3,708 instead of
//     3,416 bytes per page). Stores whose tables were written compressed
//     open as before: Badger's manifest records each table's compression.
//   - MemTableSize 64 MiB, NumMemtables 3, NumCompactors 2 (the target
//     machine has few cores), BlockCacheSize 64 MiB.
//   - ValueLogFileSize 256 MiB so that value-log GC reclaims space in
//     moderate steps.
//   - SyncWrites false by default: Badger writes through mmap, so a
//     committed transaction survives a process crash (kill -9); set
//     Options.SyncWrites to survive power loss as well.
//   - ChecksumVerificationMode OnBlockRead and VerifyValueChecksum: a
//     damaged table block or value-log entry gives an error instead of
//     wrong data (a CRC per 4 KiB block or per value: cheap next to zstd).
//   - DetectConflicts true: Commit checks "is this docId stored" inside the
//     transaction and retries on conflict, so concurrent writers cannot
//     both store the same docId.
//
// Value-log GC runs every Options.GCInterval and once at Close. Little
// garbage reaches the value log by design: page records are never
// overwritten, the records that are (URL records, queue entries) are
// small and live in the LSM tree, and large meta values (filter
// snapshots, replaced often) are files in DIR/blobs that are deleted as
// soon as they are replaced. Badger's GC only finds stale values through
// statistics gathered by LSM compactions, which a crawler's small key
// stream rarely triggers, so relying on it for snapshots would let them
// pile up.
//
// # Free space
//
// Badger writes its value log, memtable logs and tables through mmap into
// files extended sparsely (ftruncate): on a full filesystem a write into
// such a page is not an error but a SIGBUS in Badger's own goroutine,
// which kills the process with a goroutine dump. So a writable DB watches
// the free space of its filesystem: Commit and PutMeta refuse to write
// (*NoSpaceError, ErrNoSpace) once it falls below Options.MinFreeBytes
// (default 257 MiB: one value-log file, see DefaultMinFreeBytes) plus the
// disk taken by the memtable logs not yet flushed, which is what Close
// needs to flush them into tables. The watch samples statfs(2) once per
// MiB written or per second (a mutex and a clock read per commit
// otherwise), and lists the directory for the memtable logs only when the
// free space comes within (NumMemtables+1) × MemTableSize of the reserve.
// Value-log GC is skipped below the reserve. Write errors that come back
// anyway are classified: ENOSPC and EDQUOT give a *NoSpaceError, EIO an
// error wrapping ErrIO, each naming the store and its mount point.
//
// Cost, measured on 2 shared cores: BenchmarkSpaceAdmit, 140 ns per 4 KiB
// commit (statfs every 256); BenchmarkCommit workers=4/zstd=fastest, 5
// interleaved runs, median 1670 pages/s with the watch and 1570 without;
// a 3,000-page crawl of a loopback site, 5 alternating runs, median 999
// pages/s with the watch and 967 without: within the machine's noise.
//
// # Measured (2 shared cores, real documentation pages of 20–100 KB)
//
// See bench_test.go for the commands. Commit: about 3,100 pages/s with
// one writer (zstd default level); 12.6 KB on disk per page for 52 KB of
// raw HTML plus 10 KB of text (0.24 of the HTML). PageByURL in a
// 100k-page store: p50 90 µs, p99 270 µs (bodies decompressed).
// ForEachFingerprint: 1 µs per document (about 1 s per million).
//
// # Caveats
//
// Badger replays its write-ahead log when a store that was not closed
// cleanly is opened read-write, and truncates the log after its last
// complete entry; that is how a crash loses only the transaction in
// flight. Badger v4 has no option to refuse that truncation, so Open first
// probes the store read-only: a store that Badger cannot read (bad
// manifest, missing table files, bad checksums) yields [ErrCorrupt] before
// anything is written. A store that merely needs log replay is opened
// read-write and recovered. A corrupt entry in the middle of the last
// write-ahead log is indistinguishable from a torn tail and loses the
// transactions after it.
//
// The free-space watch prevents the SIGBUS only when this store's own
// writes are what fills the disk. If another process takes the reserve
// between two samples, Badger can still fault; debug.SetPanicOnFault
// cannot help because it applies to the calling goroutine only, and the
// faulting writes run in Badger's goroutines (doWrites, flushMemtable,
// compactors). On tmpfs even reading a hole of a memory-mapped file
// allocates a page, so opening a store whose tmpfs is completely full can
// fault while Badger replays a memtable log; that replay runs in the
// caller's goroutine, so Open catches the fault (SetPanicOnFault) and
// returns a *NoSpaceError (or ErrIO when space is left), leaking what
// Badger had started: a process should exit after it. A read-write Open
// also refuses, before Badger writes anything, when the free space is
// below the memtable logs to flush plus 1 MiB.
//
// Opening with Options.ReadOnly shares the directory with other readers
// but fails with [ErrLocked] while a writer holds it, and with
// [ErrNeedsRecovery] when the store was not closed cleanly.
package storage
