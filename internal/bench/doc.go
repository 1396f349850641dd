// Package bench holds the measurements behind `bloomcrawl bench`: each
// benchmark is a function taking options and returning rows, and
// cmd/bloomcrawl only parses flags into those options and prints the rows.
//
// synthetic.go: [Synthetic] crawls generated sites (package
// internal/synthsite) of several sizes and reports pages/s, RssAnon, the
// Go live heap, disk bytes per page and the loss against the site's exact
// ground truth. The site and the crawl run in child processes
// ([ChildServe], [ChildCrawl]) so that the crawl's memory is its own.
package bench
