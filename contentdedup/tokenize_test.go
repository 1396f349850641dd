package contentdedup

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// TestHasWidthVariant: every rune width.Fold changes is one hasWidthVariant
// looks for (it may look at a few more), so skipping Fold when it reports
// false changes nothing.
func TestHasWidthVariant(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := "a" + string(r) + "b"
		if width.Fold.String(s) != s && !hasWidthVariant(s) {
			t.Fatalf("U+%04X: width.Fold changes it, hasWidthVariant misses it", r)
		}
	}
}
