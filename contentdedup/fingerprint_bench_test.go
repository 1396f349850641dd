package contentdedup

import (
	"os"
	"testing"
)

func readFixture(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// BenchmarkFingerprint measures tokenization (gse included) plus SimHash of
// a real page, per language; b.SetBytes makes `go test` print MB/s on one core
// (run with -cpu 1).
func BenchmarkFingerprint(b *testing.B) {
	tok := NewTokenizer()
	for _, c := range []struct{ name, file string }{
		{"zh", "zh_first.txt"},
		{"en", "en_functions.txt"},
	} {
		text := readFixture(b, c.file)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var words []string
			for b.Loop() {
				words = tok.Tokens(words[:0], text)
				FingerprintParams{}.Fingerprint(words)
			}
		})
		b.Run(c.name+"/sign-with-sketch", func(b *testing.B) {
			// what Check computes: title and content SimHash plus the
			// content Sketch
			d, err := New(Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				d.Sign("Defining Functions", text)
			}
		})
		b.Run(c.name+"/tokens-only", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var words []string
			for b.Loop() {
				words = tok.Tokens(words[:0], text)
			}
		})
	}
}
