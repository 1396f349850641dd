// Package console is bloomcrawl's web console: server-rendered HTML pages
// that show a running crawl and the store it writes, and the forms that
// steer the crawl. `crawl --serve ADDR` and `serve` mount it at "/" and
// "/console/" of the HTTP API (package api), behind the API's
// authentication; [ServeCrawl] serves both during a crawl.
//
// # Views
//
//   - status ("/", "/console/"): the crawl's state and counters, rates,
//     memory, disk, the URL filter's false positives beside its
//     prediction, a chart of queued vs fetched vs stored with an estimated
//     finish, and the refresh counters of a continuous crawl; pushed every
//     second over server-sent events (/console/events);
//   - hosts (/console/hosts): one row per host, sortable and filterable
//     (the fetch counters of at most crawler.Options.HostCounters hosts,
//     the rest summed in an "other hosts" row), responses by status code
//     and content type, the latest failed and skipped URLs with their
//     reason; /console/queue.txt is the queue;
//   - pages (/console/pages, /console/doc/{docId}): search stored pages by
//     URL or title; a document with its text, versions, every URL mapped
//     to it and why, its similar pages and its WARC record;
//   - steer (/console/steer): pause, resume, stop; add and remove
//     exclusions; the actions taken;
//   - cluster (/console/cluster): with --cluster, the nodes, partitions
//     and totals.
//
// The pages are rendered by html/template and work without JavaScript
// (reload to refresh; forms post and redirect back). With JavaScript, the
// status view updates itself (console.js, an EventSource) and draws its
// chart with uPlot; the hosts view's tables refresh every 3 s and the
// status view's buttons post with htmx. Both libraries are vendored in
// assets/ with their licenses and embedded: the console loads nothing from
// another host.
//
// # Caveats
//
// The console samples the crawl once a second (a few atomic loads) for
// its chart, viewers or not; everything else is computed only for a
// viewer. The store's totals come from a full scan of its keys, reused for
// ten times as long as the scan took. Steering requests from a browser
// must come from the console's own origin (Origin or Sec-Fetch-Site
// checked): a page elsewhere cannot pause a crawl on loopback.
package console
