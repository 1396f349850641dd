package contentdedup

import (
	"strings"
	"testing"
)

// TestSignatureBinaryAndCheckSig: a signature round-trips through its
// binary form (with and without a sketch; other lengths are errors), and
// Prepare + CheckSig on the decoded signature decides exactly as
// CheckCanonical does on the text.
func TestSignatureBinaryAndCheckSig(t *testing.T) {
	a, _ := New(Options{})
	b, _ := New(Options{})
	long := strings.Repeat("the quick brown fox jumps over the lazy dog while the cat sleeps ", 8)
	texts := []struct{ url, title, text string }{
		{"https://a.example/1", "Foxes", long},
		{"https://b.example/1", "Foxes | B", long + " and one more line"},
		{"https://c.example/1", "Short", "two words"},
		{"https://d.example/1", "", ""},
		{"https://a.example/1", "Foxes", long},
	}
	for _, x := range texts {
		want := a.CheckCanonical(x.url, "", x.title, x.text)
		sig, sim := b.Prepare(x.title, x.text)
		bin, _ := sig.MarshalBinary()
		var back Signature
		if err := back.UnmarshalBinary(bin); err != nil || back != sig {
			t.Fatalf("%s: round trip %+v → %+v, %v", x.url, sig, back, err)
		}
		if n := len(bin); n != SignatureBytes && n != SignatureBytes+SketchBytes {
			t.Errorf("%s: %d bytes", x.url, n)
		}
		got := b.CheckSig(x.url, "", back, sim)
		if got.DocID != want.DocID || got.Reason != want.Reason || got.Duplicate != want.Duplicate || got.Distance != want.Distance || got.Similar != want.Similar {
			t.Errorf("%s: CheckSig %+v, CheckCanonical %+v", x.url, got, want)
		}
	}
	var s Signature
	if err := s.UnmarshalBinary(make([]byte, 20)); err == nil || !strings.Contains(err.Error(), "20 bytes") {
		t.Errorf("20 bytes: err = %v, want one naming the length", err)
	}
}
