// Package seen owns per-key "already seen" records: a consumer
// (a reader, a feed, a downstream job) records the ids it has been shown
// under its key, and asks which of a batch of ids are new to it.
//
// # Basics
//
// A record is a list of Bloom blocks, newest first, each sized for
// Options.Capacity ids at false-positive rate Options.FP (seed: 1000 ids at
// 0.001, 1,800 bytes and k = 10 per block), at most Options.Blocks of them
// (seed: 5). [Records.Add] adds to the newest block until it holds Capacity
// ids, then starts a new one and drops the oldest beyond Blocks.
// [Records.Test] answers "seen" for an id that any block holds. The record
// expires Options.TTL (seed: 5 days) after its last write; a test does not
// extend it.
//
// So the last (Blocks−1)·Capacity distinct ids added (seed: 4,000) are
// always remembered, and up to Blocks·Capacity (5,000); older ids are
// forgotten a whole block (Capacity ids) at a time. An id already in the
// newest block is not counted again; an id only in an older block is added
// to the newest one again, so that showing it again keeps it remembered.
//
// The blocks are [urlfilter.Block]s: urlfilter's classic Bloom filter
// positions and sizing, in a bit vector that is stored whole.
//
// Because near-duplicates share a docId, recording a docId
// covers every copy of a story.
//
// # Stored form
//
// One value per key (so that an Add is one atomic read-modify-write),
// binary rather than the seed's text "count::base64(bits)" per block:
// base64 would store 4/3 of the bits (2,400 instead of 1,800 bytes per
// block), and both Badger values and Redis strings hold bytes. The value
// is: format version (1 byte, 1); the number of blocks (uvarint); per
// block, newest first, its count, its k and its bit-vector length
// (uvarints) and the bits ([urlfilter.Block.Bytes]); then the number of
// audit ids (uvarint, 0 when the audit is off) and each id (uvarint
// length, bytes), oldest first. [Record.Blocks] shows each block in the
// seed's text form for debugging.
//
// The audit (Options.Audit, off by default) keeps the plain ids of the
// last Blocks·Capacity adds in the same value, to see exactly what one key
// was shown; it costs about 15 bytes per id.
//
// # Stores
//
// Records keep nothing in memory; a [Store] holds the values. *storage.DB
// is one (Badger, with Badger's own TTL); *cluster.SeenStore is the other
// (Redis, shared by a cluster's nodes: GET + PTTL, and WATCH/GET …
// MULTI/SET PX/EXEC for the update, with Redis's own expiry).
// [OpenStore] opens the one or the other (`seen --store DIR` or
// `seen --cluster URL`).
//
// # Caveats
//
// Records are safe for concurrent use; concurrent Adds to one key lose no
// id when the Store serialises updates of a key (storage.DB does). A
// changed Capacity or FP applies to new blocks; existing blocks keep their
// size and k, which each block stores.
//
// Badger stores an expiry in whole Unix seconds (now + TTL, truncated), so
// a record goes up to one second before its TTL has fully passed.
package seen
