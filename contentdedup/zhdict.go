package contentdedup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
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
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("zh dictionary: empty")
	}
	var total float64
	var n, maxLen int
	if _, err := fmt.Sscanf(sc.Text(), "gse-zh-dict 1 total=%g words=%d maxlen=%d", &total, &n, &maxLen); err != nil {
		return nil, fmt.Errorf("zh dictionary: header %q: %w", sc.Text(), err)
	}
	logTotal := float32(math.Log2(total))
	words := make([][]rune, 0, n)
	costs := make([]float32, 0, n)
	line := 1
	for sc.Scan() {
		line++
		w, f, ok := strings.Cut(sc.Text(), " ")
		freq, err := strconv.ParseFloat(f, 64)
		if !ok || err != nil || w == "" || !utf8.ValidString(w) || freq <= 0 {
			return nil, fmt.Errorf("zh dictionary: line %d: bad entry %q", line, sc.Text())
		}
		if len(words) > 0 && string(words[len(words)-1]) >= w {
			return nil, fmt.Errorf("zh dictionary: line %d: %q out of order", line, w)
		}
		words = append(words, []rune(w))
		costs = append(costs, logTotal-float32(math.Log2(freq)))
	}
	if len(words) != n {
		return nil, fmt.Errorf("zh dictionary: %d words, header says %d", len(words), n)
	}
	return buildZhDict(words, costs, maxLen), nil
}

// buildZhDict builds the trie of words (sorted, distinct) breadth-first:
// each queued span is a node, the words sharing its prefix of depth runes.
func buildZhDict(words [][]rune, costs []float32, maxLen int) *zhDict {
	type span struct{ lo, hi, depth int32 }
	d := &zhDict{maxLen: maxLen, words: len(words)}
	queue := []span{{0, int32(len(words)), 0}}
	for qi := 0; qi < len(queue); qi++ {
		s := queue[qi]
		c := float32(math.Inf(1))
		lo := s.lo
		if lo < s.hi && int32(len(words[lo])) == s.depth {
			c = costs[lo] // the word equal to the prefix sorts first
			lo++
		}
		d.cost = append(d.cost, c)
		d.first = append(d.first, int32(len(d.label)))
		for lo < s.hi {
			r := words[lo][s.depth]
			j := lo + 1
			for j < s.hi && words[j][s.depth] == r {
				j++
			}
			d.label = append(d.label, r)
			queue = append(queue, span{lo, j, s.depth + 1})
			lo = j
		}
	}
	d.first = append(d.first, int32(len(d.label)))
	d.first = slices.Clip(d.first)
	d.label = slices.Clip(d.label)
	d.cost = slices.Clip(d.cost)
	return d
}
