package contentdedup

import "testing"

// TestNearDuplicateAgreesWithCheck: on every fixture pair, NearDuplicate
// of the two signatures says what the content step of Check decides (a
// Deduper without the title step merges the pair exactly when
// NearDuplicate holds), and both kinds of answer occur.
func TestNearDuplicateAgreesWithCheck(t *testing.T) {
	seen := map[bool]int{}
	for _, p := range readPairs(t) {
		d := mustNew(t, Options{NoTitleStep: true})
		va := d.Check(p.A.URL, p.A.Title, p.A.Text)
		vb := d.Check(p.B.URL, p.B.Title, p.B.Text)
		merged := vb.DocID == va.DocID
		dist, near := d.NearDuplicate(va.Sig, vb.Sig)
		if near != merged {
			t.Errorf("%s: NearDuplicate = %v (distance %d), Check merged = %v", p.Name, near, dist, merged)
		}
		if sig := d.Sign(p.B.Title, p.B.Text); sig.Content != vb.Sig.Content {
			t.Errorf("%s: Sign and Check disagree on the content fingerprint", p.Name)
		}
		seen[near]++
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("answers %v: the fixtures should give both", seen)
	}
}
