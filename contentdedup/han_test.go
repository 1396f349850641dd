package contentdedup

import (
	"bytes"
	"compress/gzip"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/go-ego/gse"
)

var (
	gseOnce sync.Once
	gseRef  *gse.Segmenter
	gseErr  error
)

// gseReference is gse's own Segmenter with its embedded dictionary, the
// reference the compiled dictionary and the lattice walk are checked against.
func gseReference(tb testing.TB) *gse.Segmenter {
	tb.Helper()
	gseOnce.Do(func() {
		var s gse.Segmenter
		s.SkipLog = true
		gseErr = s.LoadDictEmbed()
		gseRef = &s
	})
	if gseErr != nil {
		tb.Fatal(gseErr)
	}
	return gseRef
}

// lookup returns the cost of word in d, or +Inf.
func (d *zhDict) lookup(word string) float32 {
	n := int32(0)
	for _, r := range word {
		if n = d.child(n, r); n < 0 {
			return float32(math.Inf(1))
		}
	}
	return d.cost[n]
}

// TestZhDictMatchesGse checks the embedded compiled dictionary word for word
// against the gse module in go.mod: every all-Han gse word is in it with
// gse's path cost, and it has no other words. It fails after a gse upgrade
// until `go generate ./contentdedup` is run.
func TestZhDictMatchesGse(t *testing.T) {
	ref := gseReference(t).Dict
	_, h, err := loadSegmenter()
	if err != nil {
		t.Fatal(err)
	}
	d := h.dict
	logTotal := float32(math.Log2(ref.TotalFreq()))
	n, maxLen := 0, 0
	for i := range ref.Tokens {
		tok := &ref.Tokens[i]
		w := tok.Text()
		if !isHanWord(w) {
			continue
		}
		n++
		maxLen = max(maxLen, utf8.RuneCountInString(w))
		want := logTotal - float32(math.Log2(tok.Freq()))
		if got := d.lookup(w); got != want {
			t.Fatalf("word %q: cost %v, gse gives %v", w, got, want)
		}
	}
	if n != d.words || n < 500_000 {
		t.Fatalf("compiled dictionary has %d words, gse has %d all-Han words", d.words, n)
	}
	if maxLen != d.maxLen {
		t.Fatalf("maxLen %d, gse's longest all-Han word has %d characters", d.maxLen, maxLen)
	}
	// and nothing else: count the trie's word nodes
	words := 0
	for _, c := range d.cost {
		if !math.IsInf(float64(c), 1) {
			words++
		}
	}
	if words != n {
		t.Fatalf("trie holds %d words, want %d", words, n)
	}
	for _, w := range []string{"中华人民共和国", "计算机", "電腦"} {
		if math.IsInf(float64(d.lookup(w)), 1) {
			t.Errorf("%q missing", w)
		}
	}
	if !math.IsInf(float64(d.lookup("计算机电脑")), 1) {
		t.Error("a non-word was found")
	}
}

func isHanWord(w string) bool {
	for _, r := range w {
		if !isCJK(r) {
			return false
		}
	}
	return w != ""
}

// TestHanCutterMatchesGse checks that our lattice walk gives exactly gse's
// Segment result on every Han run of the Chinese fixtures.
func TestHanCutterMatchesGse(t *testing.T) {
	ref := gseReference(t)
	_, han, err := loadSegmenter()
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, f := range []string{"zh_first.txt", "zh_choosing.txt"} {
		text := readFixture(t, f)
		for _, run := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) {
			var want, got []string
			for _, s := range ref.Segment([]byte(run)) {
				want = append(want, run[s.Start():s.End()])
			}
			han.cut(run, func(w string) { got = append(got, w) })
			if !slices.Equal(got, want) {
				t.Fatalf("%s: run %q: got %q, gse gives %q", f, run, got, want)
			}
			runs++
		}
	}
	if runs < 100 {
		t.Fatalf("only %d Han runs in the fixtures", runs)
	}
}

func TestParseZhDictErrors(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"header", "nonsense\n", "header"},
		{"count", "gse-zh-dict 1 total=10 words=2 maxlen=2\n中 1\n", "1 words, header says 2"},
		{"order", "gse-zh-dict 1 total=10 words=2 maxlen=2\n国 1\n中 1\n", "line 3"},
		{"freq", "gse-zh-dict 1 total=10 words=1 maxlen=2\n中 x\n", "line 2: bad entry"},
	} {
		_, err := parseZhDict(gzipBytes(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := parseZhDict([]byte("not gzip")); err == nil {
		t.Error("not gzip: no error")
	}
}

func gzipBytes(tb testing.TB, s string) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}
