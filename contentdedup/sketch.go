package contentdedup

import (
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/similar"
)

// SketchBins is the number of bins of a [Sketch].
const SketchBins = 128

// SketchBytes is the size of a [Sketch] as stored ([Sketch.Bytes]).
const SketchBytes = SketchBins

// SketchShingle is the number of consecutive words in one feature of a
// [Sketch] (word 3-shingles of the normalized words, stop words dropped).
const SketchShingle = 3

// Sketch is a one-permutation b-bit MinHash (Li, Owen and Zhang, NIPS 2012;
// Li and König, WWW 2010) of a text's word shingles: each shingle hash goes
// to one of SketchBins bins by its top 7 bits, each bin keeps the shingle of
// least rank (the other 57 bits), and the bin stores 8 bits of a hash of
// that shingle (0 = empty bin; real values are 1..255). Two sketches
// estimate the Jaccard similarity of their shingle sets
// ([SketchJaccard]): the fraction of equal bins among the bins that are
// not empty in both at once. 128 bytes per document; the zero Sketch means "no sketch" (an
// empty text, or a document restored without one).
type Sketch [SketchBins]uint8

// IsZero reports whether s is the zero Sketch (no sketch).
func (s *Sketch) IsZero() bool { return *s == Sketch{} }

// Bytes returns the stored form of s: SketchBytes bytes, bin i at i; nil
// for the zero Sketch.
func (s *Sketch) Bytes() []byte {
	if s.IsZero() {
		return nil
	}
	b := make([]byte, SketchBytes)
	copy(b, s[:])
	return b
}

// SketchFromBytes decodes the stored form of a Sketch: nil or empty gives
// the zero Sketch; any length other than 0 or SketchBytes is an error.
func SketchFromBytes(b []byte) (Sketch, error) {
	var s Sketch
	if len(b) == 0 {
		return s, nil
	}
	if len(b) != SketchBytes {
		return s, fmt.Errorf("contentdedup: sketch of %d bytes (want %d)", len(b), SketchBytes)
	}
	copy(s[:], b)
	return s, nil
}

// NewSketch returns the sketch of the word shingles of words (shingle words
// each; one feature for the whole text when shorter); the zero Sketch when
// words is empty.
func NewSketch(words []string, shingle int) Sketch {
	return sketchOf(similar.FeatureHashes(make([]uint64, 0, len(words)), words, shingle))
}

func sketchOf(hs []uint64) Sketch {
	var s Sketch
	if len(hs) == 0 {
		return s
	}
	const rankMask = 1<<57 - 1
	var mins [SketchBins]uint64
	for i := range mins {
		mins[i] = ^uint64(0)
	}
	for _, h := range hs {
		h = similar.Mix64(h ^ 0x5bd1e9955bd1e995) // independent of the SimHash bits
		bin, rank := h>>57, h&rankMask
		if rank < mins[bin] {
			mins[bin] = rank
		}
	}
	for i, m := range mins {
		if m == ^uint64(0) {
			continue
		}
		v := uint8(similar.Mix64(m) >> 56)
		if v == 0 {
			v = 1
		}
		s[i] = v
	}
	return s
}

// SketchJaccard estimates the Jaccard similarity of the shingle sets of two
// sketches: equal bins / bins that are not empty in at least one of them.
// It returns n, the number of bins compared (0 when either sketch is zero:
// no estimate). Its standard
// error is about sqrt(J(1-J)/n); with 8-bit bins a false equality has
// probability 1/255, which the estimate corrects for.
func SketchJaccard(a, b *Sketch) (j float64, n int) {
	if a.IsZero() || b.IsZero() {
		return 0, 0
	}
	eq := 0
	for i := range a {
		x, y := a[i], b[i]
		if x == 0 && y == 0 {
			continue
		}
		n++
		if x == y {
			eq++
		}
	}
	if n == 0 {
		return 0, 0
	}
	// an equal byte by chance (1/255) biases the fraction: correct it
	const c = 1.0 / 255
	j = (float64(eq)/float64(n) - c) / (1 - c)
	return max(j, 0), n
}
