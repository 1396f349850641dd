// Package similar owns similar pages: the MinHash signatures of a page's
// word set (p = [Rows] minimums per band key, q = [Bands] bands, hash
// functions (a + b·x) mod 2^61−1), the band keys that make two pages
// candidates, the Jaccard estimate that ranks them, the parameters a
// store's index is built with ([Params]), and the word-shingle feature
// hashes that SimHash, the sketches and MinHash are all computed over.
//
// It segments no text (contentdedup gives it words: [contentdedup.Deduper]
// fills a new document's [Entry] in its verdict) and stores nothing: the
// store keeps each page's Entry and the inverted index band key → pages
// and answers a page's neighbours (storage.DB.Similar), and
// internal/dedupstore fills a store's index for pages stored without one.
// The HTTP API serves them at GET /v1/pages/{docId}/similar and the query
// command as `bloomcrawl query similar`; docs/similar-pages.md has the
// measured recall and precision against exact Jaccard.
//
// An in-memory [Index] clusters signatures the same way for programs that
// hold their documents in memory (the lab's evaluations).
package similar
