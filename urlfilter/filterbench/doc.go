// Package filterbench holds the URL filters' own benchmarks, the ones
// bloomcrawl ships (bloomcrawl bench fp and bloomcrawl bench filter): each
// is a function taking options and returning rows, and cmd/bloomcrawl only
// parses flags into those options and prints the rows (bench filter's
// flags, which cmd/bloomcrawl-lab's filter shares, are declared by
// [FilterCommand]). Counting is exact
// (every positive is checked against an exact set) and tested on small
// generated inputs. Timings are taken on a locked OS thread with its CPU
// clock where the platform has one (ns per operation then counts only that
// thread's work on a shared machine).
//
// # Benchmarks
//
//   - fp.go: [FP] replays a URL stream, in order, through a fresh filter of
//     every variant at several memory budgets and counts each false
//     positive against an exact set.
//   - filter.go: [Filter] inserts N keys into each variant (ours and a Go
//     map; other libraries' filters come in through [FilterOptions].Peers,
//     which only cmd/bloomcrawl-lab passes), tests N fresh keys, and
//     reports memory, measured and predicted FP, and ns per add and test.
//   - command.go: [FilterCommand], the flags and output of a Filter run,
//     shared by bloomcrawl bench filter and the lab's filter (which adds
//     peers), so that the two commands cannot drift apart.
//
// # Inputs
//
// [URLKeys] and [SyntheticStream] generate deterministic URL-shaped keys and
// a crawl-like discovery stream; [TraceFromStore] and [ReadURLs] read real
// ones: a crawl store's recorded URL trace, a file of URLs.
//
// # Caveats
//
// The API follows the bloomcrawl command, not a compatibility promise.
package filterbench
