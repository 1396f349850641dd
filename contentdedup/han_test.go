package contentdedup

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestHanCutterMatchesGse checks that our lattice walk gives exactly gse's
// Segment result on every Han run of the Chinese fixtures.
func TestHanCutterMatchesGse(t *testing.T) {
	tok := mustTokenizer(t)
	runs := 0
	for _, f := range []string{"zh_first.txt", "zh_choosing.txt"} {
		text := readFixture(t, f)
		for _, run := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) {
			var want, got []string
			for _, s := range tok.seg.Segment([]byte(run)) {
				want = append(want, run[s.Start():s.End()])
			}
			tok.han.cut(run, func(w string) { got = append(got, w) })
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
