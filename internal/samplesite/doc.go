// Package samplesite is a small website, generated deterministically from
// embedded texts, that bloomcrawl's demo crawls and the crawler's end-to-end
// tests assert against. It owns the pages, the HTTP handler that serves
// them, the Manifest: the exact ground truth of what a correct crawl of
// the site stores, merges, skips and never fetches, and the demo's report
// of what a crawl did with each URL (Outcomes, read from the crawl's store),
// with the config and the opening lines of that crawl (DemoConfig, WriteIntro).
//
// # Basics
//
//	site := samplesite.New()
//	base, stop, err := site.Start(ctx) // http://127.0.0.1:PORT, loopback only
//	defer stop()
//	m := site.Manifest()               // what a crawl from base+"/" must find
//
// or serve site.Handler() with net/http/httptest.
//
// # What the site holds
//
// English and Chinese articles (sections of the Debian FAQ, see
// content/SOURCE.md); near-duplicate copies under other URLs (a print view
// of every article, syndicated copies with another template and a date
// line, mirrored copies with a few words changed); "/" and "/index.html"
// serving the same page; links carrying #fragments and utm_* tracking
// parameters; four different articles all titled "Introduction" (which must
// not be merged); a calendar URL trap; a page served as GBK with the charset
// only in the Content-Type header and one encoded in GB18030 with the
// charset only in a <meta> tag; 301 redirects, a redirect loop, a 404, a PDF
// and a PNG; a slow page; a robots.txt that disallows /private/ (linked from
// the home page, so it must never be requested by a crawler obeying robots);
// and an off-site link.
//
// # What a crawler is expected to do
//
// A correct crawl seeded with base+"/" and scoped to the site's host:
//   - stores exactly one page per entry of Manifest.Docs (whichever of its
//     URLs it fetched first) and never stores two entries as one document
//     (their SimHash fingerprints are more than 6 bits apart, and the four
//     "Introduction" pages share only their title);
//   - maps every Copy with SameText (index.html, print views) and every
//     Redirect of an entry to that entry's document;
//   - maps near-duplicate copies (SameText false: syndicated copies with a
//     date line, mirrored copies with three words changed) to it as far as
//     its fingerprint finds them: they are duplicates by construction, so a
//     copy stored as a new document is a recall miss to report, not a
//     correct outcome (TestSimHashDistances logs the measured distances);
//   - records but does not store Manifest.Errors and Manifest.Resources;
//   - never requests Manifest.Disallowed (when obeying robots.txt) or
//     Manifest.External, and never requests a URL of Manifest.Aliases as
//     written (only its canonical form).
//
// The calendar trap (Manifest.Trap) is unbounded by design: /calendar?month=N
// links to month N+1 forever, and months differ only in their name. Month N
// is N links away from "/", so a crawl with scope.max_depth D fetches months
// 1..D; with scope.exclude matching Trap.Exclude it fetches none; with
// neither it stops only at scope.max_pages. The Manifest does not say
// whether two calendar months are near-duplicates of each other (they are
// short and nearly identical), only that they are not entries of Docs.
//
// # Caveats
//
// Requests are logged (Site.Requests, Site.Hits) so that tests can assert
// what was fetched; the log keeps at most 65536 entries. The slow page waits
// Options.SlowDelay (bounded by MaxSlowDelay) or until the client goes away
// or the server stops.
package samplesite
