package contentdedup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
	"github.com/bloomcrawl/bloomcrawl/similar"
	"github.com/cespare/xxhash/v2"
)

// Defaults of [Options].
const (
	// DefaultThreshold is the content distance of a nil Options.Threshold.
	DefaultThreshold = 3
	// DefaultTitleContentThreshold is the content distance under which a
	// title match merges two documents (chosen by `go run ./cmd/bloomcrawl-lab dedup`).
	DefaultTitleContentThreshold = 8
	// MaxTitleGroup is the number of documents sharing one title beyond
	// which the title step ignores that title: a title on hundreds of
	// documents is a site's name, not evidence, and scanning its group on
	// every Check would make the cascade quadratic.
	MaxTitleGroup = 256
	// DefaultSketchJaccard is the default Options.SketchJaccard.
	DefaultSketchJaccard = 0.7
	// DefaultSketchDistance is the default Options.SketchDistance.
	DefaultSketchDistance = 6
	// DefaultSketchTitleDistance is the default Options.SketchTitleDistance.
	DefaultSketchTitleDistance = 64
)

// Options configure a [Deduper]. The zero value gives the defaults.
type Options struct {
	// Threshold is the largest Hamming distance between two content
	// fingerprints (and two title SimHashes) that counts as a match,
	// 0..MaxThreshold; 0 means exact matches only, as it does in
	// dedup.simhash_threshold and every --threshold flag. nil means
	// DefaultThreshold (3): a pointer, because 0 is a distance, not
	// "unset". Other values make New fail.
	Threshold *int
	// TitleContentThreshold is the largest content distance at which a title
	// match merges two documents; 0 means DefaultTitleContentThreshold (8).
	// It must be >= the content threshold (the title step only widens the
	// content step for pages that also share their title); 64 disables the
	// content check (title alone decides: measured to lose precision) for
	// documents without sketches, or with SimHashAlone.
	TitleContentThreshold int
	// NoTitleStep skips the title step of the cascade.
	NoTitleStep bool
	// NoIndexDuplicates turns off the default indexing of duplicates'
	// signatures. By default the content signature of every document
	// judged a near-duplicate (by the title or content step) is also
	// indexed, under the docId it was given, so that a later document
	// close to the duplicate (but not to the first document) joins the
	// same docId. With sketches, a match through a duplicate's signature
	// also needs an estimated Jaccard of 0.7 with the document itself, so
	// that chains of edits cannot drift (without sketches there is no such
	// guard). On the lab's dedup benchmark, seeds 1, 2, 3 (with
	// sketches), it raises English recall 0.927/0.948/0.945 →
	// 0.985/0.993/0.980 at precision 0.993/0.993/0.991 (Chinese unchanged;
	// without the 0.7 guard seed 1 measured 0.970/0.989). A store keeps these signatures with the
	// duplicates' URL records; [Deduper.RestoreAlias] indexes them again
	// at start-up, so that a restarted Deduper answers as the running one.
	NoIndexDuplicates bool
	// Fingerprint chooses the features (zero value: the measured defaults).
	Fingerprint FingerprintParams
	// SimHashAlone accepts a candidate within Threshold (or, in the title
	// step, TitleContentThreshold) on its SimHash distance alone even when
	// both documents have sketches. By default the sketch decides whenever
	// both have one: a merge then needs the estimated Jaccard similarity
	// SketchJaccard within SketchDistance (SketchTitleDistance in the title
	// step), however close the SimHashes.
	SimHashAlone bool
	// NoSketch turns the Jaccard sketch off: signatures carry no [Sketch]
	// and matches are decided by SimHash distances alone (the behaviour
	// before sketches).
	NoSketch bool
	// SketchJaccard is the estimated Jaccard similarity ([SketchJaccard])
	// at or above which a candidate is accepted when both documents have a
	// sketch; 0 means DefaultSketchJaccard.
	SketchJaccard float64
	// SketchDistance is the content distance within which candidates are
	// looked up and confirmed by their sketches (the content index is built
	// for this distance); 0 means DefaultSketchDistance. It must be
	// Threshold..MaxThreshold.
	SketchDistance int
	// SketchTitleDistance is the largest content distance at which a title
	// match is confirmed by the sketches; 0 means
	// DefaultSketchTitleDistance.
	SketchTitleDistance int
	// SpillDir, if set, is a directory where the Deduper keeps each
	// document's sketch and first URL in an unlinked temporary file
	// instead of in memory (they are read back only for the candidates a
	// Check finds; the system's page cache keeps the recent ones): about
	// 170 bytes per document leave the heap; with MapArrays, its large
	// arrays go there too. A crawl sets it to its store's directory. ""
	// keeps them in memory. Close removes the files.
	SpillDir string
	// MapArrays, with SpillDir, also keeps the large arrays (entries, packed
	// maps, index tables) in a memory-mapped file there (internal/mapped):
	// about 150 bytes per document leave the heap (CPU cost measured in
	// docs/benchmarks.md). False (the zero value) keeps them on the heap;
	// the crawl command sets it unless --mapped-arrays=false.
	MapArrays bool
	// NoSimilar leaves Verdict.Similar empty. By default Check gives every
	// new document the MinHash [Similarity] of its word set (MinHash bands,
	// p = 4, q = 6), for the "similar pages" index of a store; the
	// Deduper itself keeps none of it.
	NoSimilar bool
}

// Reason says which step of the cascade decided a [Verdict].
type Reason string

// The reasons of a Verdict.
const (
	ReasonNew     Reason = "new"     // no earlier document matched
	ReasonURL     Reason = "url"     // the same URL was checked before
	ReasonTitle   Reason = "title"   // same title and content within TitleContentThreshold
	ReasonContent Reason = "content" // content within Threshold
	// ReasonCanonical: the page declared a canonical URL (rel=canonical)
	// that was checked before, and its content agrees with that
	// document's loosely (see CheckCanonical).
	ReasonCanonical Reason = "canonical"
)

// CanonicalJaccard is the estimated Jaccard similarity (word 3-shingle
// sketches) at or above which a page joins the document of the canonical
// URL it declares (CheckCanonical), whatever their SimHash distance.
// Chosen by `go run ./cmd/bloomcrawl-lab canonical` (exact truth: word 4-shingle
// Jaccard >= 0.5 = same document) on Rust's documentation, whose thousands
// of short templated pages are the hard case. 2,000 pages sampled of
// 32,101 (1,999,000 pairs, 1,237 of them the same document): 0.5 merged
// 1,213 pairs, 298 of them different documents; 0.6 merged 606, 5
// different, leaving 395 same-document pairs apart; 0.7 (the content
// step's) merged 299, none different, 697 apart. Its alloc/ pages (249,
// 3,846 same-document pairs): 0.5 merged 37 different pairs, 0.6 none (20
// apart), 0.7 none (69 apart). A false merge loses a page, a missed one
// stores a near-copy: 0.6.
const CanonicalJaccard = 0.6

// Verdict is the decision of [Deduper.Check] for one document.
type Verdict struct {
	DocID     uint64 // stable 64-bit document id (never 0)
	Duplicate bool   // false exactly when Reason is ReasonNew
	Reason    Reason
	MatchURL  string // first URL of the document matched (empty when new)
	// Distance is the Hamming distance between the contents of the document
	// and the document matched (0 for url and for exact-hash matches).
	Distance int
	Sig      Signature // the signature of the checked document
	// Similar is the MinHash of a new document's word set, for a store's
	// similar-pages index; zero for duplicates, for a text without words,
	// and with Options.NoSimilar.
	Similar similar.Entry
}

// Signature holds a document's fingerprints as stored.
type Signature struct {
	Title, Content uint64
	// Flags: FlagTitleExact, FlagContentExact (the fingerprint is an exact
	// hash of a short text), FlagTitleEmpty, FlagContentEmpty.
	Flags uint8
	// Sketch estimates the Jaccard similarity of the contents (the zero
	// Sketch: none, e.g. a document restored from a store that had none;
	// such a document is matched by SimHash distances alone).
	Sketch Sketch
}

// Deduper runs the URL → title → content → new-docId cascade and remembers
// every document it accepted. All methods are safe for concurrent use;
// Check decides and remembers atomically, so two concurrent near-identical
// documents get one docId.
type Deduper struct {
	o Options
	// The resolved Options (defaults applied).
	threshold           int     // content SimHash distance accepted on its own
	titleThreshold      int     // content distance of a title-step match
	sketchDistance      int     // content distance of sketch-confirmed candidates
	sketchTitleDistance int     // content distance of sketch-confirmed title matches
	sketchJaccard       float64 // estimated Jaccard a sketch-confirmed match needs (1: sketches off)

	tok     *Tokenizer
	sim     *similar.MinHash // nil with NoSimilar
	mu      sync.Mutex
	urls    packedMap    // xxhash(url) → docId
	docs    packedMap    // docId → its own entry
	entries entryList    // every indexed signature, in the order indexed
	blobs   *blobLog     // sketches and first URLs of the entries
	arrays  *mapped.File // the large arrays of the maps, entries and indexes (nil: on the heap)
	content *Index       // SimHash content fingerprints
	title   *Index       // SimHash title fingerprints
	byFP    packedMap    // content fingerprint → last entry with it (then entry.nextFP)
	byTitle packedMap    // title fingerprint → its entries (a group)

	restoreContent, restoreTitle []uint64 // restored, not yet indexed
	restoreAliases               []alias  // RestoreAlias, not yet indexed
}

// group is the list of entries sharing a title fingerprint: the last one
// added (then entry.nextTitle) and how many (at most MaxTitleGroup+1 are
// kept).
type group struct{ last, n int32 }

func (g group) pack() uint64 { return uint64(uint32(g.last)) | uint64(uint32(g.n))<<32 }

func unpackGroup(v uint64) group { return group{last: int32(uint32(v)), n: int32(uint32(v >> 32))} }

// titleGroup returns the group of title fingerprint fp.
func (d *Deduper) titleGroup(fp uint64) (group, bool) {
	v, ok := d.byTitle.get(fp)
	if !ok {
		return group{last: none}, false
	}
	return unpackGroup(v), true
}

// fpLast returns the last entry filed under content fingerprint fp.
func (d *Deduper) fpLast(fp uint64) (int32, bool) {
	v, ok := d.byFP.get(fp)
	if !ok {
		return none, false
	}
	return int32(v), true
}

// docEntry returns the own entry of document id.
func (d *Deduper) docEntry(id uint64) (int32, bool) {
	v, ok := d.docs.get(id)
	return int32(v), ok
}

// entryChunk is the number of entries in one chunk of an entryList.
const entryChunk = 1 << 14

// entryList is a list of entries in fixed chunks: growing it never copies
// the entries (a slice of 10M entries would double to 1.1 GB for a moment)
// and a pointer to an entry stays valid.
type entryList struct {
	chunks [][]entry
	n      int
	mf     *mapped.File // where the chunks live (nil: the heap)
}

func (l *entryList) len() int { return l.n }

// at returns entry i.
func (l *entryList) at(i int32) *entry { return &l.chunks[i/entryChunk][i%entryChunk] }

// add appends e and returns its number.
func (l *entryList) add(e entry) int32 {
	if l.n%entryChunk == 0 {
		l.chunks = append(l.chunks, mapped.Make[entry](l.mf, entryChunk)[:0])
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, e)
	l.n++
	return int32(l.n - 1)
}

// alias is a duplicate's signature restored by RestoreAlias.
type alias struct {
	id  uint64
	sig Signature
}

// entry is an indexed signature: a new document's, or (unless
// NoIndexDuplicates) a duplicate's, which then stands for the document
// (rep). Entries hold no pointers and sit in one slice: 56 bytes each,
// which the garbage collector never scans. The sketch and the first URL
// are in the Deduper's blobLog at blob: SketchBytes bytes of sketch when
// hasSketch, then urlLen bytes of URL (a document's own entry only). An
// entry's position in Deduper.entries is its seq (earlier wins ties).
type entry struct {
	id             uint64
	content, title uint64
	blob           int64
	urlLen         uint32
	// rep is the document's own entry that a duplicate's signature stands
	// for (see Options.NoIndexDuplicates); -1 for a document's own entry.
	rep               int32
	nextFP, nextTitle int32 // the previous entry with the same content / title fingerprint; -1: none
	flags             uint8
	hasSketch         bool
}

const none = -1

// sketchOf returns the sketch of entry i (the zero Sketch when it has none).
func (d *Deduper) sketchOf(i int32) (s Sketch) {
	if e := d.entries.at(i); e.hasSketch {
		d.blobs.read(e.blob, s[:])
	}
	return s
}

// urlOf returns the first URL of the document of entry i.
func (d *Deduper) urlOf(i int32) string {
	e := d.entries.at(i)
	if e.rep != none {
		e = d.entries.at(e.rep)
	}
	if e.urlLen == 0 {
		return ""
	}
	b := make([]byte, e.urlLen)
	off := e.blob
	if e.hasSketch {
		off += SketchBytes
	}
	d.blobs.read(off, b)
	return string(b)
}

// sigOf returns the signature of entry i, sketch included.
func (d *Deduper) sigOf(i int32) Signature {
	e := d.entries.at(i)
	return Signature{Title: e.title, Content: e.content, Flags: e.flags, Sketch: d.sketchOf(i)}
}

// ErrOptions is wrapped by New for invalid Options.
var ErrOptions = errors.New("contentdedup: invalid options")

// New returns an empty Deduper. It starts loading the shared gse
// dictionary in the background (about 0.15 s, once per process; only Han
// text waits for it); it fails only for invalid Options.
func New(o Options) (*Deduper, error) {
	k := DefaultThreshold
	if o.Threshold != nil {
		k = *o.Threshold
		if k < 0 || k > MaxThreshold {
			return nil, fmt.Errorf("%w: Threshold %d (want 0..%d)", ErrOptions, k, MaxThreshold)
		}
	}
	tk := o.TitleContentThreshold
	if tk == 0 {
		tk = max(DefaultTitleContentThreshold, k)
	}
	if tk < k || tk > 64 {
		return nil, fmt.Errorf("%w: TitleContentThreshold %d (want %d..64)", ErrOptions, o.TitleContentThreshold, k)
	}
	sk, skTK, skJ := k, tk, 1.0
	if !o.NoSketch {
		sk, skTK, skJ = o.SketchDistance, o.SketchTitleDistance, o.SketchJaccard
		if sk == 0 {
			sk = max(DefaultSketchDistance, k)
		}
		if skTK == 0 {
			skTK = DefaultSketchTitleDistance
		}
		if skJ == 0 {
			skJ = DefaultSketchJaccard
		}
		if sk < k || sk > MaxThreshold {
			return nil, fmt.Errorf("%w: SketchDistance %d (want %d..%d)", ErrOptions, o.SketchDistance, k, MaxThreshold)
		}
		if skTK < 0 || skTK > 64 {
			return nil, fmt.Errorf("%w: SketchTitleDistance %d (want 0..64)", ErrOptions, o.SketchTitleDistance)
		}
		if skJ < 0 || skJ > 1 {
			return nil, fmt.Errorf("%w: SketchJaccard %v (want 0..1)", ErrOptions, o.SketchJaccard)
		}
	}
	blobs, err := newBlobLog(o.SpillDir)
	if err != nil {
		return nil, err
	}
	var mf *mapped.File
	if o.SpillDir != "" && o.MapArrays {
		if mf, err = mapped.Create(o.SpillDir); err != nil {
			blobs.close()
			return nil, err
		}
	}
	tok := NewTokenizer()
	var sim *similar.MinHash
	if !o.NoSimilar {
		sim = similar.NewPages()
	}
	ci, _ := NewIndex(sk)
	ti, _ := NewIndex(k)
	ci.mf, ti.mf = mf, mf
	return &Deduper{
		o: o, threshold: k, titleThreshold: tk, sketchDistance: sk, sketchTitleDistance: skTK, sketchJaccard: skJ, tok: tok, sim: sim,
		blobs: blobs, arrays: mf,
		urls: packedMap{mf: mf}, docs: packedMap{mf: mf}, byFP: packedMap{mf: mf}, byTitle: packedMap{mf: mf},
		entries: entryList{mf: mf},
		content: ci, title: ti,
	}, nil
}

// Close removes the spill files (Options.SpillDir) and unmaps the arrays
// held in them; the Deduper must not be used afterwards. Without a spill
// directory it does nothing.
func (d *Deduper) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.blobs.close()
	if d.arrays != nil {
		d.content.mu.Lock()
		d.title.mu.Lock()
		defer d.content.mu.Unlock()
		defer d.title.mu.Unlock()
		if aerr := d.arrays.Close(); err == nil {
			err = aerr
		}
	}
	return err
}

// Err returns the first error of the spill files (Options.SpillDir), nil
// if none: after a write error the Deduper keeps what it could not write
// in memory; after a read error one candidate was compared without its
// sketch; an array that could not be mapped (a full disk) stayed on the
// heap.
func (d *Deduper) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.blobs.err != nil {
		return d.blobs.err
	}
	return d.arrays.Err()
}

// MappedBytes returns the bytes of the Deduper's arrays held in its
// memory-mapped spill file (page cache, not anonymous memory; 0 without
// Options.SpillDir).
func (d *Deduper) MappedBytes() int64 { return d.arrays.Bytes() }

// Threshold returns the content distance in effect.
func (d *Deduper) Threshold() int { return d.threshold }

// Sign returns the signature of a document without checking or remembering
// it: the words of [MainTitle](title) fingerprinted one feature per word
// (an exact hash below MinSimHashTokens words, as nearly all titles are),
// the text's as Options.Fingerprint says.
func (d *Deduper) Sign(title, text string) Signature {
	sig, _ := d.sign(title, text)
	return sig
}

// sign is Sign, also returning the words of text.
func (d *Deduper) sign(title, text string) (Signature, []string) {
	var sig Signature
	words := d.tok.Tokens(nil, MainTitle(title))
	fp, exact, empty := FingerprintParams{Shingle: 1, MinTokens: d.o.Fingerprint.MinTokens}.Fingerprint(words)
	sig.Title = fp
	if exact {
		sig.Flags |= FlagTitleExact
	}
	if empty {
		sig.Flags |= FlagTitleEmpty
	}
	words = d.tok.Tokens(words[:0], text)
	fp, exact, empty = d.o.Fingerprint.Fingerprint(words)
	sig.Content = fp
	if exact {
		sig.Flags |= FlagContentExact
	}
	if !d.o.NoSketch && !empty && !exact {
		sig.Sketch = NewSketch(words, SketchShingle)
	}
	if empty {
		sig.Flags |= FlagContentEmpty
	}
	return sig, words
}

// titleSeparators split a page title into its own part and the site's.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " :: ", " « ", " » ", " · ", " _ ", "｜", " › "}

// MainTitle returns the part of title before the first separator that
// sites use to append their name (" | ", " - ", " – ", " — ", " :: ", " « ",
// " » ", " · ", " _ ", "｜", " › "), so that "Classes — Python 3.11
// documentation" and "Classes — Python 3.11 documentation | Mirror" share a
// title, and returns title itself when that part would be empty. The title
// step compares this part only; its content check keeps titles such as a
// site name shared by every page from merging anything on their own.
func MainTitle(title string) string {
	cut := len(title)
	for _, sep := range titleSeparators {
		if i := strings.Index(title, sep); i >= 0 && i < cut {
			cut = i
		}
	}
	if strings.TrimSpace(title[:cut]) == "" {
		return title
	}
	return title[:cut]
}

func urlKey(url string) uint64 { return xxhash.Sum64String(url) }

// Check decides whether the document (url, title, text) is new or a
// duplicate, and remembers it: a new document gets a new docId, and url maps
// to the docId of the verdict either way. The cascade:
//
//  1. url: the same URL was checked (or restored) before → its docId (an
//     empty url never matches and is not remembered);
//  2. title: an earlier document has the same [MainTitle] (equal exact
//     hashes, or SimHashes within Threshold; titles on more than
//     MaxTitleGroup documents are ignored) and, when both have sketches,
//     content within SketchTitleDistance with an estimated Jaccard >=
//     SketchJaccard, else content within TitleContentThreshold (both texts
//     empty also counts);
//  3. content: when both have sketches, an earlier document's content is
//     within SketchDistance with an estimated Jaccard >= SketchJaccard;
//     else within Threshold (exact hashes must be equal);
//
// (with SimHashAlone, a distance within TitleContentThreshold or Threshold
// also merges when both have sketches); the candidates of steps 2 and 3
// compete: the one whose sketch estimates the highest Jaccard similarity
// wins (without sketches: the closest content; a title match wins ties,
// then the closest, then the earliest), and the reason says which step
// found it;
//  4. otherwise a new docId (see the package doc for the rule).
//
// The content signature of a duplicate found by step 2 or 3 is indexed
// under its docId too, unless Options.NoIndexDuplicates (a caller that keeps
// a store records Verdict.Sig and gives it back with RestoreAlias).
func (d *Deduper) Check(url, title, text string) Verdict {
	return d.CheckCanonical(url, "", title, text)
}

// CheckCanonical is Check for a page at url that declares canonical as its
// canonical URL (<link rel="canonical">): the site saying both URLs are
// one document. A step between the url and title steps uses it: when
// canonical is not url and was checked (or restored) before, the page
// joins canonical's document if their contents agree loosely — both
// sketches (word 3-shingles) estimate a Jaccard similarity of at least
// CanonicalJaccard, at any SimHash distance; without sketches, content
// within TitleContentThreshold; short texts (exact hashes) must be equal;
// two empty texts agree — and the verdict's reason is ReasonCanonical.
// Otherwise (canonical unknown, or contents that clearly differ: the
// common misuse of pointing every page at the home page) the title and
// content steps decide as in Check. canonical "" is Check.
func (d *Deduper) CheckCanonical(url, canonical, title, text string) Verdict {
	sig, sim := d.Prepare(title, text)
	return d.CheckSig(url, canonical, sig, sim)
}

// Prepare returns what CheckCanonical computes from a document before it
// looks at the Deduper's state: its signature (Sign) and, unless
// Options.NoSimilar, the MinHash Similarity of its words. It changes
// nothing; with CheckSig it splits CheckCanonical in two, so that the
// expensive half can run apart from the decision (cluster mode signs a
// page on its node and every node replays the decision).
func (d *Deduper) Prepare(title, text string) (Signature, similar.Entry) {
	sig, words := d.sign(title, text)
	var sim similar.Entry
	if d.sim != nil {
		sim = similar.Of(d.sim, words)
	}
	return sig, sim
}

// CheckSig is CheckCanonical for a document already signed (Prepare): it
// decides and remembers exactly as CheckCanonical(url, canonical, title,
// text) does when sig and sim are Prepare(title, text). sim is returned
// in the verdict of a new document only. Given the same sequence of
// CheckSig, AddURL and Restore calls, two Dedupers give the same verdicts
// and docIds.
func (d *Deduper) CheckSig(url, canonical string, sig Signature, sim similar.Entry) Verdict {
	uk := urlKey(url)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.flushRestoredLocked()
	if id, ok := d.urls.get(uk); ok && url != "" {
		v := Verdict{DocID: id, Duplicate: true, Reason: ReasonURL, Sig: sig}
		if m, ok := d.docEntry(id); ok {
			v.MatchURL = d.urlOf(m)
		}
		return v
	}
	if canonical != "" && canonical != url {
		if id, ok := d.urls.get(urlKey(canonical)); ok {
			if m, ok := d.docEntry(id); ok {
				msig := d.sigOf(m)
				if cd, ok := d.canonicalAgreesLocked(&sig, &msig); ok {
					if url != "" {
						d.urls.set(uk, id)
					}
					if !d.o.NoIndexDuplicates && sig != msig {
						d.addAliasLocked(m, sig)
					}
					return Verdict{DocID: id, Duplicate: true, Reason: ReasonCanonical, MatchURL: d.urlOf(m), Distance: cd, Sig: sig}
				}
			}
		}
	}
	if m, msig, dist := d.matchLocked(sig); m != none {
		reason := ReasonContent
		if dist < 0 {
			reason, dist = ReasonTitle, -dist-1
		}
		id := d.entries.at(m).id
		if url != "" {
			d.urls.set(uk, id)
		}
		if !d.o.NoIndexDuplicates && sig != msig {
			d.addAliasLocked(m, sig)
		}
		return Verdict{DocID: id, Duplicate: true, Reason: reason, MatchURL: d.urlOf(m), Distance: dist, Sig: sig}
	}
	id := d.newIDLocked(url, sig)
	d.addLocked(id, url, sig, true)
	if url != "" {
		d.urls.set(uk, id)
	}
	return Verdict{DocID: id, Reason: ReasonNew, Sig: sig, Similar: sim}
}

// matchLocked runs the title and content steps. A title match is returned
// with distance -(dist+1).
//
// The best candidate is the one whose sketch estimates the highest Jaccard
// similarity (candidates without sketches: the closest content), then a
// title match, then the closest, then the earliest. (Letting any title
// match win outright measured English recall 0.916 instead of 0.927 on
// the lab's dedup benchmark, seed 1.)
func (d *Deduper) matchLocked(sig Signature) (int32, Signature, int) {
	var tb best
	tb.m = none
	if !d.o.NoTitleStep && sig.Flags&FlagTitleEmpty == 0 {
		b := &tb
		for _, tfp := range d.candidatesLocked(d.title, sig.Title, sig.Flags&FlagTitleExact != 0, true) {
			g, _ := d.titleGroup(tfp)
			if g.n > MaxTitleGroup {
				continue // not a page's title but a site's: no evidence
			}
			for m := g.last; m != none; m = d.entries.at(m).nextTitle {
				e := d.entries.at(m)
				if e.flags&(FlagTitleExact|FlagTitleEmpty) != sig.Flags&(FlagTitleExact|FlagTitleEmpty) {
					continue
				}
				cd, ok := contentDistance(sig, e.content, e.flags)
				if !ok || cd > max(d.titleThreshold, d.sketchTitleDistance) {
					continue // too far whatever the sketches say
				}
				msig := d.sigOf(m)
				if score, ok := d.acceptLocked(&sig, &msig, cd, d.titleThreshold, d.sketchTitleDistance); ok {
					b.offer(m, msig, cd, score)
				}
			}
		}
	}
	if sig.Flags&FlagContentEmpty != 0 {
		if tb.m != none {
			return tb.m, tb.sig, -tb.d - 1
		}
		return none, Signature{}, 0
	}
	var b best
	b.m = none
	for _, cfp := range d.candidatesLocked(d.content, sig.Content, sig.Flags&FlagContentExact != 0, false) {
		for m, _ := d.fpLast(cfp); m != none; m = d.entries.at(m).nextFP {
			e := d.entries.at(m)
			cd, ok := contentDistance(sig, e.content, e.flags)
			if !ok || cd > max(d.threshold, d.sketchDistance) {
				continue
			}
			msig := d.sigOf(m)
			score, ok := d.acceptLocked(&sig, &msig, cd, d.threshold, d.sketchDistance)
			if ok && e.rep != none && !d.o.NoSketch {
				// a duplicate's signature: the document must also
				// resemble the one it stands for, so that chains of
				// small edits cannot drift (aliasGuard)
				rs := d.sketchOf(e.rep)
				if j, n := SketchJaccard(&sig.Sketch, &rs); n > 0 && j < aliasGuard {
					ok = false
				}
			}
			if ok {
				b.offer(m, msig, cd, score)
			}
		}
	}
	if tb.m != none && (b.m == none || tb.score >= b.score) {
		return tb.m, tb.sig, -tb.d - 1
	}
	return b.m, b.sig, b.d
}

// aliasGuard is the estimated Jaccard similarity to the document itself
// that a match through one of its duplicates' signatures also needs
// (Options.NoIndexDuplicates). The lab's dedup benchmark, seed 1, en: 0.5 → 0.978/0.986, 0.6 →
// 0.979/0.963, 0.7 → 0.992/0.942 (no guard: 0.970/0.989).
const aliasGuard = 0.7

// best keeps the best candidate of a step: highest score, then least
// distance, then earliest.
type best struct {
	m     int32 // entry; none when there is no candidate
	sig   Signature
	d     int
	score float64
}

func (b *best) offer(m int32, sig Signature, d int, score float64) {
	if b.m == none || score > b.score || (score == b.score && (d < b.d || (d == b.d && m < b.m))) {
		*b = best{m, sig, d, score}
	}
}

// acceptLocked decides a candidate at content distance cd: when both
// documents have sketches, it matches within sketchLimit if their
// estimated Jaccard is at least SketchJaccard (with SimHashAlone, also
// within limit whatever the estimate); otherwise it matches within limit
// on the SimHash alone. The score ranks accepted candidates: the estimated Jaccard when both have
// sketches, else 1 - cd/64.
func (d *Deduper) acceptLocked(a, b *Signature, cd, limit, sketchLimit int) (float64, bool) {
	var j float64
	n := 0
	if !d.o.NoSketch {
		j, n = SketchJaccard(&a.Sketch, &b.Sketch)
	}
	if n == 0 {
		return 1 - float64(cd)/64, cd <= limit
	}
	if d.o.SimHashAlone && cd <= limit {
		return j, true
	}
	return j, cd <= sketchLimit && j >= d.sketchJaccard
}

// CanonicalAgrees is CheckCanonical's test of a page's signature a
// against the signature b of the document its declared canonical URL maps
// to: whether they agree loosely enough to merge, and their content
// distance. It reads only the Deduper's options (safe for concurrent use).
func (d *Deduper) CanonicalAgrees(a, b Signature) (distance int, ok bool) {
	return d.canonicalAgreesLocked(&a, &b)
}

// canonicalAgreesLocked is CanonicalAgrees.
func (d *Deduper) canonicalAgreesLocked(a, b *Signature) (int, bool) {
	cd, ok := contentDistance(*a, b.Content, b.Flags)
	if !ok {
		return 0, false
	}
	if a.Flags&(FlagContentExact|FlagContentEmpty) != 0 {
		return cd, true // equal exact hashes, or both empty
	}
	if !d.o.NoSketch {
		if j, n := SketchJaccard(&a.Sketch, &b.Sketch); n > 0 {
			return cd, j >= CanonicalJaccard
		}
	}
	return cd, cd <= d.titleThreshold
}

// contentDistance returns the distance between the contents of a and b, and
// false when they are not comparable (an exact hash against a SimHash) or
// differ as exact hashes. Two empty contents are at distance 0.
func contentDistance(a Signature, bContent uint64, bFlags uint8) (int, bool) {
	const kind = FlagContentExact | FlagContentEmpty
	if a.Flags&kind != bFlags&kind {
		return 0, false
	}
	if a.Flags&kind != 0 {
		return 0, a.Content == bContent
	}
	return Hamming(a.Content, bContent), true
}

// candidatesLocked returns the stored fingerprints that may match fp: fp
// itself for an exact hash, else every SimHash within the index's distance.
func (d *Deduper) candidatesLocked(x *Index, fp uint64, exact, title bool) []uint64 {
	if exact {
		ok := false
		if title {
			_, ok = d.byTitle.get(fp)
		} else {
			_, ok = d.byFP.get(fp)
		}
		if ok {
			return []uint64{fp}
		}
		return nil
	}
	return x.Within(fp, nil)
}

// newIDLocked returns the docId of a new document: see the package doc.
func (d *Deduper) newIDLocked(url string, sig Signature) uint64 {
	var buf [9]byte
	binary.BigEndian.PutUint64(buf[:8], sig.Content)
	buf[8] = sig.Flags
	h := xxhash.New()
	h.WriteString(url)
	h.Write([]byte{0})
	h.Write(buf[:])
	id := h.Sum64()
	for _, taken := d.docs.get(id); id == 0 || taken; _, taken = d.docs.get(id) {
		id++
	}
	return id
}

// addLocked remembers a document. index says whether to put its SimHashes
// in the indexes now (Check) or later in one batch (RestoreDoc).
func (d *Deduper) addLocked(id uint64, url string, sig Signature, index bool) {
	i := d.newEntryLocked(id, url, sig, none)
	if _, ok := d.docs.get(id); !ok {
		d.docs.set(id, uint64(i))
	}
	if sig.Flags&FlagContentEmpty == 0 {
		if fp, ok := d.linkFPLocked(i); ok {
			if index {
				d.content.Add(fp)
			} else {
				d.restoreContent = append(d.restoreContent, fp)
			}
		}
	}
	if sig.Flags&FlagTitleEmpty == 0 {
		g, seen := d.titleGroup(sig.Title)
		if !seen && sig.Flags&FlagTitleExact == 0 {
			if index {
				d.title.Add(sig.Title)
			} else {
				d.restoreTitle = append(d.restoreTitle, sig.Title)
			}
		}
		if g.n <= MaxTitleGroup {
			d.entries.at(i).nextTitle = g.last
			g.last, g.n = i, g.n+1
			d.byTitle.set(sig.Title, g.pack())
		}
	}
}

// newEntryLocked appends the entry of sig (its sketch and, for a
// document's own entry, url go to the blob log) and returns its number.
func (d *Deduper) newEntryLocked(id uint64, url string, sig Signature, rep int32) int32 {
	if d.entries.len() == math.MaxInt32 {
		panic("contentdedup: more than 2^31-1 signatures in one Deduper")
	}
	e := entry{id: id, content: sig.Content, title: sig.Title, flags: sig.Flags, rep: rep, nextFP: none, nextTitle: none}
	var sk []byte
	if !sig.Sketch.IsZero() {
		e.hasSketch, sk = true, sig.Sketch[:]
	}
	if rep != none {
		url = ""
	}
	e.urlLen = uint32(len(url))
	if sk != nil || url != "" {
		e.blob = d.blobs.add(sk, []byte(url))
	}
	return d.entries.add(e)
}

// linkFPLocked files entry i under its content fingerprint and returns the
// fingerprint and true when it still has to be put in the content index.
func (d *Deduper) linkFPLocked(i int32) (uint64, bool) {
	e := d.entries.at(i)
	last, seen := d.fpLast(e.content)
	e.nextFP = last
	d.byFP.set(e.content, uint64(uint32(i)))
	return e.content, !seen && e.flags&FlagContentExact == 0
}

// addAliasLocked indexes the content signature of a duplicate of entry m's
// document under its docId, for the content step only (see
// Options.NoIndexDuplicates).
func (d *Deduper) addAliasLocked(m int32, sig Signature) {
	if fp, ok := d.putAliasLocked(m, sig); ok {
		d.content.Add(fp)
	}
}

// putAliasLocked files the alias entry of sig under the document of entry
// m and returns its content fingerprint and true when that fingerprint
// still has to be put in the content index.
func (d *Deduper) putAliasLocked(m int32, sig Signature) (uint64, bool) {
	if sig.Flags&FlagContentEmpty != 0 {
		return 0, false
	}
	rep := m
	if r := d.entries.at(m).rep; r != none {
		rep = r
	}
	i := d.newEntryLocked(d.entries.at(m).id, "", sig, rep)
	return d.linkFPLocked(i)
}

func (d *Deduper) flushRestoredLocked() {
	for _, a := range d.restoreAliases {
		m, ok := d.docEntry(a.id)
		if !ok || sameContent(a.sig, d.sigOf(m)) {
			continue // document not restored, or nothing to add
		}
		if fp, ok := d.putAliasLocked(m, a.sig); ok {
			d.restoreContent = append(d.restoreContent, fp)
		}
	}
	d.restoreAliases = nil
	if len(d.restoreContent) > 0 {
		d.content.AddBatch(d.restoreContent)
		d.restoreContent = nil
	}
	if len(d.restoreTitle) > 0 {
		d.title.AddBatch(d.restoreTitle)
		d.restoreTitle = nil
	}
}

// RestoreDoc remembers a document kept by an earlier run (start-up rebuild
// from storage): docID with its first URL and signature. Restoring a docId
// already known does nothing. The fingerprints are indexed in one batch
// before the next Check, so restoring 1M documents takes seconds.
func (d *Deduper) RestoreDoc(docID uint64, url string, sig Signature) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.docs.get(docID); ok {
		return
	}
	d.addLocked(docID, url, sig, false)
	d.urls.set(urlKey(url), docID)
}

// RestoreAlias remembers the content signature of a near-duplicate of
// docID recorded by an earlier run (its Verdict.Sig; only Content, Flags and
// Sketch are used), exactly as Check indexed it when it judged the
// duplicate: in the content step, under docID, guarded by the document's
// own sketch. Like RestoreDoc it is indexed in one batch before the next
// Check, and it may be called before or after the RestoreDoc of docID; it
// is dropped if docID has not been restored by then, and does nothing
// with Options.NoIndexDuplicates or for an empty content.
func (d *Deduper) RestoreAlias(docID uint64, sig Signature) {
	if d.o.NoIndexDuplicates || sig.Flags&FlagContentEmpty != 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.restoreAliases = append(d.restoreAliases, alias{docID, sig})
}

// sameContent reports whether a and b have the same content signature
// (what an alias entry is matched by).
func sameContent(a, b Signature) bool {
	const kind = FlagContentExact | FlagContentEmpty
	return a.Content == b.Content && a.Flags&kind == b.Flags&kind && a.Sketch == b.Sketch
}

// AddURL records, while crawling, that url is another address of docID
// (a redirect source of a page Check has just answered), so that a later
// Check of url answers docID with ReasonURL. Safe for concurrent use.
func (d *Deduper) AddURL(url string, docID uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.urls.set(urlKey(url), docID)
}

// RestoreURL remembers that url belongs to docID (a duplicate or alias
// recorded by an earlier run), so that Check answers ReasonURL for it. It
// is AddURL under the name of the other Restore methods, which rebuild a
// Deduper from a store.
func (d *Deduper) RestoreURL(url string, docID uint64) { d.AddURL(url, docID) }

// Len returns the number of documents (docIds) remembered.
func (d *Deduper) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.docs.len()
}

// URLs returns the number of URLs remembered.
func (d *Deduper) URLs() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.urls.len()
}

// NearDuplicate reports whether the contents of two signatures are near
// duplicates by the content step's rules (what Check would merge): equal
// exact hashes or both empty; otherwise a SimHash distance within
// Options.Threshold, or, when both carry sketches, within the sketch
// distance with an estimated Jaccard of at least the sketch threshold.
// It also returns their content distance (0 when not comparable). A
// continuous crawl uses it to tell an edit of a page from a new version.
// It reads only the Deduper's options (safe for concurrent use).
func (d *Deduper) NearDuplicate(a, b Signature) (distance int, ok bool) {
	cd, ok := contentDistance(a, b.Content, b.Flags)
	if !ok {
		return 0, false
	}
	if a.Flags&(FlagContentExact|FlagContentEmpty) != 0 {
		return cd, true
	}
	_, ok = d.acceptLocked(&a, &b, cd, d.threshold, d.sketchDistance)
	return cd, ok
}
