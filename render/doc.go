// Package render renders web pages in a headless Chromium driven over the
// DevTools protocol (chromedp), and decides which pages need it.
//
// # Basics
//
// A [Browser] owns one Chromium process, started on the first [Browser.Render]
// (a crawl that renders nothing never starts it) and a bounded pool of tabs
// (Options.Tabs), each slot keeping the next page's tab opened ahead. Each
// page is rendered in a tab of its own, in a browser context of its own (no cookies, storage or cache shared between pages),
// within a time budget (Options.Timeout): the page is loaded, then the
// render waits until no request is in flight and the DOM has stopped
// changing (or the budget is nearly spent), optionally scrolls and clicks
// "load more" buttons (Options.Scroll, Options.Clicks), and returns the
// serialized DOM, the URLs the page pushed with history.pushState or
// replaceState, and what its requests were.
//
// The browser itself makes no network request: every request of the page
// is intercepted (the Fetch domain) and answered by the caller's
// [Page.Fetch], or refused. The page's own document is answered with the
// server's HTML the caller already has ([Page.HTML]): rendering never
// fetches a page twice. Images, media and fonts are refused unless
// Options.LoadMedia; Page.Fetch decides the rest (scope, robots.txt,
// politeness, archiving are the caller's).
//
// [Detect] is the cheap check of a server's HTML (an empty app root, a
// <noscript> asking for JavaScript, an empty navigation container filled by
// a script, hydration data with little text, little visible text for the
// page's size); a [Decider] combines the mode (never, auto, always), the
// per-URL rules and what it learned of each host into one decision per
// page, and counts the decisions and their reasons.
//
// # Caveats
//
// A crashed or hung browser (a render that fails and a browser that does not
// answer a short ping) is killed and started again; the page is tried
// once more on the new browser, and a second failure is returned to the
// caller. Rendering costs tens to hundreds of milliseconds of CPU per page
// (see docs/rendering.md); Chromium's memory counts against the machine.
package render
