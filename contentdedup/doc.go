// Package contentdedup decides, for each fetched page, whether it is new or
// a near-duplicate of a page already kept, and which document id (docId) it
// belongs to. It knows nothing of HTML, HTTP or storage: it takes a URL, a
// title and the page's main text.
//
// # Pipeline
//
// Text is normalized (full-width forms folded, lower-cased), cut into words
// (runs of Han characters are segmented by gse with its embedded dictionary;
// runs of letters and digits in other scripts are words as they stand),
// stripped of punctuation and of Chinese and English stop words. Features are
// the words (see [ShingleSize]; 2- and 3-word shingles measured worse),
// weighted by raw term frequency in mostly-Chinese texts and by damped term
// frequency (1 + ln tf) in the others ([WeightAuto]); each feature is hashed
// to 64 bits and the SimHash fingerprint takes the sign of the weighted bit
// sums. Texts with fewer than
// [MinSimHashTokens] words get an exact hash of their normalized words
// instead, flagged in [Signature.Flags].
//
// Fingerprints are found within Hamming distance k by an [Index] of
// permuted sorted tables (Manku, Jain and Das Sarma, WWW 2007): for k <= 3
// the 64 bits are split into k+1 blocks and one table is kept per block, so
// that every fingerprint within distance k agrees exactly with the query on
// the block of at least one table (pigeonhole); for k = 4..6 into 4 blocks,
// at least one of which is within one bit of the query's, so each table is
// probed at the key and its 16 one-bit neighbours. Lookups are exact: they
// return the same set as a linear scan.
//
// Memory: a Deduper keeps, per document, a 56-byte entry in fixed chunks,
// four packed sorted maps (docId, URL hash, content and title fingerprint:
// about 18 bytes per key each) and 8 bytes per content-index table (4 for
// the default distance 6): about 175 bytes, none of it pointers the garbage
// collector scans (BenchmarkDeduperRestore reports it). With
// [Options.SpillDir] each document's sketch and first URL wait in an
// unlinked file and are read back only for the candidates of a lookup; with
// [Options.MapArrays] too, the large arrays (entry chunks, packed maps, the
// big index tables) are regions of a second, memory-mapped unlinked file
// (internal/mapped): page cache, like Badger's tables, rather than heap,
// about 21 bytes per document staying on the heap. Without them all of it
// is on the heap.
//
// A [Deduper] runs the docId cascade: exact URL → title → content →
// new docId. The title step compares [MainTitle] (the title without a site
// suffix such as " | Example") and merges only when the titles match AND the
// contents are within a looser distance ([Options.TitleContentThreshold],
// default 8), so that pages sharing a generic title ("Introduction", "首页")
// are never merged on the title alone (measured: merging on the title alone
// drops precision to 0.30 on the Chinese set).
//
// Every signature of a text of MinSimHashTokens words or more also carries
// a [Sketch]: a 128-byte one-permutation b-bit MinHash of its word
// 3-shingles that estimates Jaccard similarity ([SketchJaccard]; measured
// mean absolute error 0.03 against the exact shingle Jaccard). The
// SimHash is then the candidate generator and the sketch the judge: the
// content index is built for [Options.SketchDistance] (default 6), and a
// candidate within that distance (within [Options.SketchTitleDistance],
// default 64, for a title match) is a duplicate when the estimated Jaccard
// is at least [Options.SketchJaccard] (default 0.7), however close the
// SimHashes ([Options.SimHashAlone] lets a distance within Threshold merge
// on its own: on a Rust docs crawl that merged short templated pages of
// different functions, ~10% of its merges with an
// exact Jaccard below 0.5); title and content candidates compete and the
// highest estimate wins. A document restored without a sketch is matched by
// SimHash distances alone.
//
// By default the content signature of every near-duplicate is also
// indexed under the docId it was given (see [Options.NoIndexDuplicates]),
// so that a document close to a duplicate joins the same docId, provided
// its sketch also estimates J >= 0.7 with the document itself. A store
// keeps these signatures with the duplicates' URL records and
// [Deduper.RestoreAlias] indexes them again at start-up, beside
// [Deduper.RestoreDoc]. Precision and recall of each of these choices, and
// the command that reproduces them (`go run ./cmd/bloomcrawl-lab dedup`),
// are in docs/benchmarks.md.
//
// Similar pages (not duplicates, but sharing words) are package similar's:
// Check gives every new document its [similar.Entry] (MinHash bands of its
// word set) in the verdict, which a store keeps and indexes (`bloomcrawl
// query similar`). The accuracy harness also measures MinHash as a second
// near-duplicate detector beside SimHash.
//
// The accuracy harness (`go run ./cmd/bloomcrawl-lab dedup`), its data
// generator and exact ground truth live in lab/bench and lab/dedupeval.
//
// # Document ids
//
// A new document's docId is xxhash64(url + "\x00" + 8-byte big-endian content
// fingerprint + 1-byte flags), that is a function of the first URL seen for
// the document and its content signature only; it does not depend on the
// order of processing or on the process. 0 is never used (storage reserves
// it); on the (astronomically unlikely) collision with an existing docId the
// id is incremented until free.
//
// # Concurrency
//
// Everything exported is safe for concurrent use. The gse dictionary is loaded
// once per process and shared: gse's embedded dictionary, compiled ahead of
// time by internal/gendict into a compact trie (about 0.15 s and 10 MB of
// heap to load, where gse's own loader takes ~2.5 s and ~210 MB; the words,
// costs and segmentations are gse's, checked against the gse module in
// tests). New starts the load in the background; only Han text waits for it.
//
// # Service
//
// The document-id service ({url, title, content, ...} in, {docId,
// filterStatus, filterReason, status} out) is not here: package api wraps
// a [Deduper] and a store for it, and `bloomcrawl dedup` (JSON lines) and
// `bloomcrawl serve` (HTTP) both go through api.Service.
package contentdedup
