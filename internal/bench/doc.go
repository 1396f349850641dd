// Package bench holds the measurements behind `bloomcrawl bench`: each
// benchmark is a function taking options and returning rows, and
// cmd/bloomcrawl only parses flags into those options and prints the rows.
// Benchmarks run against real components (the URL filters, the deduper, the
// store, the HTTP API, the crawler); their counting is exact and tested on
// small generated inputs. Timings are taken on a locked OS thread with its
// CPU clock where the platform has one (ns per operation then counts only
// that thread's work on a shared machine).
//
// # Benchmarks
//
//   - fp.go: [FP] replays a URL stream, in order, through a fresh filter of
//     every variant at several memory budgets and counts each false
//     positive against an exact set.
//   - filter.go: [Filter] inserts N keys into each variant and two peers,
//     tests N fresh keys, and reports memory, measured and predicted FP, and
//     ns per add and test.
//   - synthetic.go: [Synthetic] crawls generated sites (package
//     internal/synthsite) of several sizes and reports pages/s, RssAnon, the
//     Go live heap, disk bytes per page and the loss against the site's
//     exact ground truth. The site and the crawl run in child processes
//     ([ChildServe], [ChildCrawl]) so that the crawl's memory is its own.
//
// # Inputs
//
// [URLKeys] and [SyntheticStream] generate deterministic URL-shaped keys and
// a crawl-like discovery stream; [TraceFromStore] and [ReadURLs] read real
// ones.
//
// The package is internal: its API follows the bloomcrawl command, not a
// compatibility promise.
package bench
