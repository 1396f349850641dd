package contentdedup

import (
	"math"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/go-ego/gse"
)

// hanCutter segments runs of Han characters with gse's dictionary and gse's
// own algorithm (the shortest path through the word lattice, word cost
// log2(total frequency / word frequency), 32 for a character that starts no
// dictionary word), the same result as gse's Segmenter.Segment. It exists
// because Segment allocates per call and re-derives what this caches: with
// clause-sized runs that overhead was half of the time.
//
// Token facts (length in characters, path cost) live in arrays parallel to
// the dictionary's Tokens slice; a *gse.Token returned by LookupTokens is
// mapped to its index by its offset in that slice (the slice is never
// reallocated after loading, and Go's heap does not move objects).
type hanCutter struct {
	dict   *gse.Dictionary
	base   uintptr // address of dict.Tokens[0]
	chars  []int32
	cost   []float32
	maxLen int
	pool   sync.Pool // *hanScratch
}

type hanScratch struct {
	texts  []gse.Text
	offs   []int
	tokens []*gse.Token
	best   []float32
	from   []int32
	out    []int32
}

func newHanCutter(seg *gse.Segmenter) *hanCutter {
	d := seg.Dict
	h := &hanCutter{dict: d, maxLen: d.MaxTokenLen()}
	logTotal := math.Log2(d.TotalFreq())
	h.chars = make([]int32, len(d.Tokens))
	h.cost = make([]float32, len(d.Tokens))
	for i := range d.Tokens {
		t := &d.Tokens[i]
		h.chars[i] = int32(utf8.RuneCountInString(t.Text()))
		h.cost[i] = float32(logTotal) - float32(math.Log2(t.Freq()))
	}
	if len(d.Tokens) > 0 {
		h.base = uintptr(unsafe.Pointer(&d.Tokens[0]))
	}
	h.pool.New = func() any { return &hanScratch{tokens: make([]*gse.Token, h.maxLen)} }
	return h
}

func (h *hanCutter) index(t *gse.Token) int {
	return int((uintptr(unsafe.Pointer(t)) - h.base) / unsafe.Sizeof(gse.Token{}))
}

// cut calls emit for each word of run (a string of Han characters), in order.
func (h *hanCutter) cut(run string, emit func(string)) {
	s := h.pool.Get().(*hanScratch)
	defer h.pool.Put(s)
	b := []byte(run)
	s.texts, s.offs = s.texts[:0], s.offs[:0]
	for i := 0; i < len(b); {
		_, n := utf8.DecodeRune(b[i:])
		s.texts = append(s.texts, gse.Text(b[i:i+n]))
		s.offs = append(s.offs, i)
		i += n
	}
	n := len(s.texts)
	s.offs = append(s.offs, len(b))
	// best[e] is the least cost of a segmentation of the first e characters
	// (from[e] its last word's start); best[0] = 0.
	s.best = grow(s.best, n+1)
	s.from = grow(s.from, n+1)
	for i := range s.from {
		s.from[i] = -1
	}
	s.best[0] = 0
	for cur := 0; cur < n; cur++ {
		base := s.best[cur]
		end := min(cur+h.maxLen, n)
		k := h.dict.LookupTokens(s.texts[cur:end], s.tokens)
		first := 0
		for j := 0; j < k; j++ {
			i := h.index(s.tokens[j])
			l := int(h.chars[i])
			if j == 0 {
				first = l
			}
			h.relax(s, cur, cur+l, base+h.cost[i])
		}
		if k == 0 || first > 1 {
			h.relax(s, cur, cur+1, base+32)
		}
	}
	s.out = s.out[:0]
	for e := n; e > 0; e = int(s.from[e]) {
		s.out = append(s.out, s.from[e])
	}
	// s.out holds word starts from last to first.
	for i := len(s.out) - 1; i >= 0; i-- {
		start := int(s.out[i])
		stop := n
		if i > 0 {
			stop = int(s.out[i-1])
		}
		emit(run[s.offs[start]:s.offs[stop]])
	}
}

func (h *hanCutter) relax(s *hanScratch, start, end int, c float32) {
	if s.from[end] < 0 || c < s.best[end] {
		s.best[end] = c
		s.from[end] = int32(start)
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
