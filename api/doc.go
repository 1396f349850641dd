// Package api is bloomcrawl's HTTP interface: the document-id
// service, read access to the stored pages (with their similar pages,
// MinHash bands), and the per-key seen-records of package seen
// (HandlerOptions.Seen).
//
// It owns two things that the command line shares:
//
//   - [Service], the docId service. [Service.Submit] takes a
//     document {url, title, content, ...}, runs it through the content-dedup
//     cascade (exact URL → title fingerprint → content fingerprint → new
//     docId) and records the answer in the store: a new document becomes a
//     stored page, a near-duplicate becomes a URL record pointing at the
//     docId it duplicates. `bloomcrawl serve`, `bloomcrawl dedup --store` and
//     `crawl --serve` all go through it, so the three agree.
//     [Service.ServeLines] is its batch form (`bloomcrawl dedup`): one
//     JSON request a line in, one JSON answer a line out, in order.
//   - [NewHandler], the HTTP handler that serves the service and the store
//     queries (see the route list on [NewHandler]), with bearer-token auth,
//     body limits, JSON errors and Prometheus metrics on a private registry.
//
// [ListenAndServe] and [Serve] run a handler with graceful shutdown; they
// refuse a non-loopback address unless the handler checks a token.
//
// # Wire format
//
// Every answer is JSON. Errors are {"status":"error","error":"..."} with a
// 4xx or 5xx HTTP status; bad input (malformed JSON, a missing field, an
// oversized body) is rejected before anything is recorded. Document ids are
// 16-digit lowercase hexadecimal strings ("00c0ffee12345678"), the same
// spelling `bloomcrawl query` uses; a docId in a path is read by
// storage.ParseDocID (those 16 digits, or 0x and 1 to 16 hex digits). Pages
// and URL records are storage.PageView and storage.URLView, the shapes
// `bloomcrawl query --json` prints.
//
// # Caveats
//
// The dedup index lives in memory (package contentdedup) and the store on
// disk (package storage); [Service.Submit] updates the index first and then
// commits to the store. If the commit fails the request answers 500 and the
// index still remembers the document until the process restarts (the index
// is rebuilt from the store at start-up, so a restart makes them agree).
package api
