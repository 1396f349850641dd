package storage

import (
	"bytes"
	"fmt"
	"testing"
)

// TestFingerprintSketch checks that the optional sketch is stored in the
// fingerprint entry, comes back from ForEachFingerprintSketch (nil for a
// page without one), and that ForEachFingerprint still reads such entries.
func TestFingerprintSketch(t *testing.T) {
	db := mustOpen(t, "")
	with := testPage(1, "e.com")
	with.Sketch = bytes.Repeat([]byte{7, 0, 255}, 43)[:128]
	without := testPage(2, "e.com")
	mustCommit(t, db, Commit{Page: with})
	mustCommit(t, db, Commit{Page: without})
	got := map[uint64][]byte{}
	err := db.ForEachFingerprintSketch(func(id uint64, u string, tfp, cfp uint64, fl uint8, sk []byte) error {
		p := with
		if id == without.DocID {
			p = without
		}
		if id != p.DocID || u != p.URL || tfp != p.TitleFP || cfp != p.ContentFP || fl != p.FPFlags {
			t.Errorf("fingerprint = %x %s %x %x %d", id, u, tfp, cfp, fl)
		}
		got[id] = sk
		return nil
	})
	if err != nil || len(got) != 2 {
		t.Fatalf("ForEachFingerprintSketch: %d entries, err %v", len(got), err)
	}
	if !bytes.Equal(got[with.DocID], with.Sketch) {
		t.Errorf("sketch = %v, want %v", got[with.DocID], with.Sketch)
	}
	if got[without.DocID] != nil {
		t.Errorf("page without sketch: sketch = %v, want nil", got[without.DocID])
	}
	n := 0
	if err := db.ForEachFingerprint(func(uint64, string, uint64, uint64, uint8) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("ForEachFingerprint: n=%d err=%v", n, err)
	}
}

// TestFingerprintEntryFormat pins the entry layout: one written before
// sketches existed decodes with a nil sketch; a truncated sketch is an
// error naming the entry.
func TestFingerprintEntryFormat(t *testing.T) {
	old := testPage(3, "e.com")
	v := encodeFP(old) // no sketch: the layout of every earlier entry
	r, err := decodeFP(old.DocID, v)
	if err != nil || r.sketch != nil || r.url != old.URL || r.contentFP != old.ContentFP {
		t.Fatalf("old entry: %+v, %v", r, err)
	}
	old.Sketch = []byte{1, 2, 3, 4}
	v = encodeFP(old)
	if r, err = decodeFP(old.DocID, v); err != nil || !bytes.Equal(r.sketch, old.Sketch) {
		t.Fatalf("entry with sketch: %+v, %v", r, err)
	}
	_, err = decodeFP(old.DocID, v[:len(v)-1])
	if want := fmt.Sprintf("fingerprint %016x", old.DocID); err == nil || !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Fatalf("truncated sketch: err = %v, want one naming %q", err, want)
	}
}
