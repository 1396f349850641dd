package contentdedup

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

//go:generate go run ./internal/gendict -o zhdict.txt.gz

// zhDictGz is gse's Chinese dictionary (simplified + traditional, as
// gse.Segmenter.LoadDictEmbed loads it) reduced to its all-Han words and
// their frequencies by internal/gendict. TestZhDictMatchesGse checks it word
// for word against the gse module in go.mod.
//
//go:embed zhdict.txt.gz
var zhDictGz []byte

// zhDict is that dictionary as a rune trie in three flat arrays, about
// 12 bytes per trie node (1.1 M nodes, ~14 MB) where gse's own Dictionary
// takes ~190 MB of heap and ~2 s to load. Nodes are numbered breadth-first
// from the root (0), so the children of node i are nodes first[i]+1 ..
// first[i+1] and label[e] is the rune on the edge into node e+1; labels of
// one node's children are sorted.
type zhDict struct {
	first  []int32   // len = nodes+1
	label  []rune    // len = nodes-1
	cost   []float32 // per node: the word's path cost, or +Inf if no word ends here
	maxLen int       // longest word in runes
	words  int
}

// child returns the node reached from n over r, or -1.
func (d *zhDict) child(n int32, r rune) int32 {
	lo, hi := d.first[n], d.first[n+1]
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		if d.label[m] < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < d.first[n+1] && d.label[lo] == r {
		return lo + 1
	}
	return -1
}

// parseZhDict reads internal/gendict's format. Word costs are computed as
// gse's CalcToken does: log2(total frequency) − log2(word frequency), in
// float32.
func parseZhDict(gz []byte) (*zhDict, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("zh dictionary: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("zh dictionary: %w", err)
	}
	header, rest, _ := bytes.Cut(raw, []byte("\n"))
	var total float64
	var n, maxLen int
	if _, err := fmt.Sscanf(string(header), "gse-zh-dict 1 total=%g words=%d maxlen=%d", &total, &n, &maxLen); err != nil {
		return nil, fmt.Errorf("zh dictionary: header %q: %w", header, err)
	}
	if n < 0 || n > len(rest) {
		return nil, fmt.Errorf("zh dictionary: header says %d words in %d bytes", n, len(rest))
	}
	logTotal := float32(math.Log2(total))
	// All words' runes in one buffer: word i is runes[start[i]:start[i+1]].
	runes := make([]rune, 0, len(rest)/3)
	start := make([]int32, 1, n+1)
	costs := make([]float32, 0, n)
	var prev []byte
	for line := 2; len(rest) > 0; line++ {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte("\n"))
		w, f, ok := bytes.Cut(l, []byte(" "))
		freq, fok := parseFreq(f)
		if !ok || !fok || len(w) == 0 || !utf8.Valid(w) || freq <= 0 {
			return nil, fmt.Errorf("zh dictionary: line %d: bad entry %q", line, l)
		}
		if prev != nil && bytes.Compare(prev, w) >= 0 {
			return nil, fmt.Errorf("zh dictionary: line %d: %q out of order", line, w)
		}
		if len(costs) == n {
			return nil, fmt.Errorf("zh dictionary: more than the %d words the header says", n)
		}
		prev = w
		for len(w) > 0 {
			r, size := utf8.DecodeRune(w)
			runes = append(runes, r)
			w = w[size:]
		}
		start = append(start, int32(len(runes)))
		costs = append(costs, logTotal-float32(math.Log2(freq)))
	}
	if len(costs) != n {
		return nil, fmt.Errorf("zh dictionary: %d words, header says %d", len(costs), n)
	}
	return buildZhDict(runes, start, costs, maxLen), nil
}

// parseFreq parses a frequency: digits (gse's are integers) or, failing
// that, any float strconv accepts.
func parseFreq(b []byte) (float64, bool) {
	var v uint64
	for i, c := range b {
		if c < '0' || c > '9' || i >= 15 {
			f, err := strconv.ParseFloat(string(b), 64)
			return f, err == nil
		}
		v = v*10 + uint64(c-'0')
	}
	return float64(v), len(b) > 0
}

// buildZhDict builds the trie of the words (sorted, distinct; word i is
// runes[start[i]:start[i+1]]) breadth-first: each queued span is a node,
// the words sharing its prefix of depth runes.
func buildZhDict(runes []rune, start []int32, costs []float32, maxLen int) *zhDict {
	type span struct{ lo, hi, depth int32 }
	word := func(i int32) []rune { return runes[start[i]:start[i+1]] }
	nodes := len(runes) + 1 // an upper bound
	d := &zhDict{maxLen: maxLen, words: len(costs),
		first: make([]int32, 0, nodes+1), label: make([]rune, 0, nodes), cost: make([]float32, 0, nodes)}
	queue := make([]span, 1, nodes)
	queue[0] = span{0, int32(len(costs)), 0}
	for qi := 0; qi < len(queue); qi++ {
		s := queue[qi]
		c := float32(math.Inf(1))
		lo := s.lo
		if lo < s.hi && int32(len(word(lo))) == s.depth {
			c = costs[lo] // the word equal to the prefix sorts first
			lo++
		}
		d.cost = append(d.cost, c)
		d.first = append(d.first, int32(len(d.label)))
		for lo < s.hi {
			r := word(lo)[s.depth]
			j := lo + 1
			for j < s.hi && word(j)[s.depth] == r {
				j++
			}
			d.label = append(d.label, r)
			queue = append(queue, span{lo, j, s.depth + 1})
			lo = j
		}
	}
	d.first = append(d.first, int32(len(d.label)))
	// exact-size copies free the upper-bound allocations
	d.first, d.label, d.cost = slices.Clone(d.first), slices.Clone(d.label), slices.Clone(d.cost)
	return d
}
