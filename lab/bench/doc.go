// Package bench holds the lab's measurements, run with go run
// ./cmd/bloomcrawl-lab: each benchmark is a function taking options and
// returning rows, and cmd/bloomcrawl-lab only parses flags into those
// options and prints the rows. Benchmarks run against real components (the
// deduper, the store, the HTTP API, the crawler); their counting is exact
// and tested on small generated inputs. The product's own benchmarks
// (bloomcrawl bench fp and bench filter) live in urlfilter/filterbench;
// this package adds the filters of other libraries to them ([FilterPeers]).
//
// # Benchmarks
//
//   - peers.go: [FilterPeers], the bits-and-blooms Bloom filter that
//     go run ./cmd/bloomcrawl-lab filter measures beside ours.
//   - dedup.go: [Dedup] makes near-duplicate variants of real pages
//     (package lab/dedupeval), computes the exact word-shingle
//     Jaccard of every pair and scores each dedup method's clustering by
//     precision and recall, English and Chinese apart.
//   - canonical.go: [Canonical] judges every pair of a corpus's pages by
//     the rel=canonical guard (contentdedup's CanonicalAgrees) and by exact
//     word-shingle Jaccard: false merges, near-duplicates kept apart, the
//     every-page-declares-the-home-page misuse, a threshold sweep.
//   - serve.go: [Serve] loads the HTTP API (POST /v1/docid, GET
//     /v1/pages/{docId}) on loopback over a real store from several
//     clients: requests/s, latency percentiles, CPU per request.
//   - crawl.go: [Crawl] serves directories of static HTML on loopback
//     (Go's file server, or nginx when asked) and runs crawlers on them
//     as child processes: requests, distinct URLs and pages counted from
//     the server's own log, seconds, peak RSS, and whether every page wget
//     reached is in bloomcrawl's store. Lab-only crawlers (a bare Colly
//     crawler) live in cmd/bloomcrawl-lab and are passed in as commands.
//   - synthetic.go: [Synthetic] crawls generated sites (package
//     lab/synthsite) of several sizes and reports pages/s, RssAnon, the
//     Go live heap, disk bytes per page and the loss against the site's
//     exact ground truth. The site and the crawl run in child processes
//     ([ChildServe], [ChildCrawl]) so that the crawl's memory is its own.
//   - cluster.go: [Cluster] crawls one generated multi-host site (a
//     synthsite per loopback host, each page also linking to the next
//     host) with 1, 2, 3 … cluster nodes as child processes against a fresh
//     redis-server (or 3-master Redis Cluster) per crawl: aggregate pages/s
//     from the site's own clock, node and Redis CPU per page, round trips
//     per page (counted by each node's client), Redis commands and bytes in
//     and out per page (INFO), the URL filter's bytes per URL (MEMORY
//     USAGE), and every page fetched once (the site's count).
//
// # Inputs
//
// [LoadCorpus] reads a directory tree of HTML pages with the crawler's own
// extraction (crawler.Extract), the one loader of the corpus benchmarks;
// [Language] sorts a text into Chinese, English or neither.
//
// The package is lab code: its API follows the bloomcrawl-lab command, not
// a compatibility promise, and nothing in the bloomcrawl binary imports it.
package bench
