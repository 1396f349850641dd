package contentdedup

import (
	"math"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/bloomcrawl/bloomcrawl/similar"
)

// Signature flags: which fingerprints of a [Signature] are not SimHashes.
const (
	// FlagTitleExact: Title is an exact hash of the normalized title words
	// (fewer than MinSimHashTokens words), compared only for equality.
	FlagTitleExact uint8 = 1 << iota
	// FlagContentExact: Content is an exact hash of the normalized text.
	FlagContentExact
	// FlagTitleEmpty: the title has no words; Title is 0 and never matches.
	FlagTitleEmpty
	// FlagContentEmpty: the text has no words; Content is 0 and matches
	// only other empty texts, through the title step.
	FlagContentEmpty
)

// Defaults of the fingerprint, chosen by measurement (`go run
// ./cmd/bloomcrawl-lab dedup`; figures in docs/content-dedup.md).
const (
	// ShingleSize is the number of consecutive words in one content feature.
	ShingleSize = 1
	// MinSimHashTokens is the number of words below which a text gets an
	// exact hash instead of a SimHash. The short-text sweep of `go run
	// ./cmd/bloomcrawl-lab dedup` sets it: for windows of 10 words, SimHash (d <= 3)
	// merged 2.2% (en) and 0.7% (zh) of one-word edits whose 4-shingle
	// Jaccard is below 0.5, 0.15% / 0% at 15 words, and none at 20.
	MinSimHashTokens = 20
)

// Hamming returns the number of bits in which a and b differ.
func Hamming(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Weighting says how a feature's weight grows with its count tf in the text.
type Weighting uint8

// Weightings.
const (
	// WeightAuto, the default, is WeightTF for texts whose words are
	// mostly Chinese and WeightLog for the others: measured best for each
	// (`go run ./cmd/bloomcrawl-lab dedup`). Raw counts keep a Chinese page's
	// fingerprint stable under edits without bringing distinct pages
	// closer; on English pages they make pages that share a vocabulary
	// collide, and damped counts do not.
	WeightAuto Weighting = iota
	WeightLog            // 1 + ln(tf)
	WeightTF             // tf
	WeightSqrt           // sqrt(tf)
	WeightOne            // 1 (a set)
)

func (w Weighting) of(tf int) float64 {
	switch w {
	case WeightTF:
		return float64(tf)
	case WeightSqrt:
		return math.Sqrt(float64(tf))
	case WeightOne:
		return 1
	}
	return 1 + math.Log(float64(tf))
}

// SimHash returns the 64-bit SimHash of a multiset of feature hashes with
// the default weighting, WeightLog.
func SimHash(hs []uint64) uint64 { return SimHashWeighted(hs, WeightLog) }

// SimHashWeighted returns the 64-bit SimHash of a multiset of feature
// hashes: each distinct feature weighs w.of(tf) (tf = its count), and bit b
// of the result is 1 when the features with bit b set outweigh those with it
// clear. It sorts hs in place. The SimHash of no features is 0.
func SimHashWeighted(hs []uint64, wt Weighting) uint64 {
	if len(hs) == 0 {
		return 0
	}
	sortHashes(hs)
	var ones [64]float64
	total := 0.0
	for i := 0; i < len(hs); {
		j := i + 1
		for j < len(hs) && hs[j] == hs[i] {
			j++
		}
		w := wt.of(j - i)
		total += w
		h := hs[i]
		for b := 0; b < 64; b++ {
			ones[b] += w * float64(h>>uint(b)&1)
		}
		i = j
	}
	var fp uint64
	half := total / 2
	for b := 0; b < 64; b++ {
		if ones[b] > half {
			fp |= 1 << uint(b)
		}
	}
	return fp
}

// exactHash is the fingerprint of a short text: a hash of its words.
func exactHash(words []string) uint64 {
	d := xxhash.New()
	for i, w := range words {
		if i > 0 {
			d.WriteString("\x1f")
		}
		d.WriteString(w)
	}
	return d.Sum64()
}

// FingerprintParams are the feature choices of a fingerprint.
type FingerprintParams struct {
	Shingle   int // words per feature; 0 = ShingleSize
	MinTokens int // below this many words: exact hash; 0 = MinSimHashTokens, <0 = never
	// Weight is how a feature's count weighs; 0 = WeightAuto.
	Weight Weighting
}

func (p FingerprintParams) withDefaults() FingerprintParams {
	if p.Shingle == 0 {
		p.Shingle = ShingleSize
	}
	if p.MinTokens == 0 {
		p.MinTokens = MinSimHashTokens
	}
	return p
}

// Fingerprint returns the fingerprint of words and whether it is an exact
// hash (fewer than p.MinTokens words) or empty (no words).
func (p FingerprintParams) Fingerprint(words []string) (fp uint64, exact, empty bool) {
	p = p.withDefaults()
	switch {
	case len(words) == 0:
		return 0, false, true
	case len(words) < p.MinTokens:
		return exactHash(words), true, false
	}
	w := p.Weight
	if w == WeightAuto {
		w = WeightLog
		if mostlyHan(words) {
			w = WeightTF
		}
	}
	return SimHashWeighted(similar.FeatureHashes(make([]uint64, 0, len(words)), words, p.Shingle), w), false, false
}

// mostlyHan reports whether at least half of words start with a Han
// character.
func mostlyHan(words []string) bool {
	n := 0
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if isCJK(r) {
			n++
		}
	}
	return 2*n >= len(words)
}

// sortHashes sorts hs ascending: pdqsort, or above 4096 keys an LSD radix
// sort (8 passes of 8 bits; 3.2× faster at 10,000 keys, slower below ~3,000:
// BenchmarkSortHashes).
func sortHashes(hs []uint64) {
	if len(hs) <= 4096 {
		slices.Sort(hs)
		return
	}
	radixSort(hs)
}

func radixSort(hs []uint64) {
	var count [8][256]int
	for _, h := range hs {
		for p := range 8 {
			count[p][byte(h>>(8*p))]++
		}
	}
	buf := make([]uint64, len(hs))
	src, dst := hs, buf
	for p := range 8 {
		c := &count[p]
		if c[byte(src[0]>>(8*p))] == len(src) {
			continue // every key has the same digit here
		}
		sum := 0
		for d := range c {
			c[d], sum = sum, sum+c[d]
		}
		for _, h := range src {
			d := byte(h >> (8 * p))
			dst[c[d]] = h
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &hs[0] {
		copy(hs, src)
	}
}
