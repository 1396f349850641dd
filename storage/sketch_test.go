package storage

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestFingerprintSketch checks that the optional sketch is stored in the
// fingerprint entry and comes back from ForEachFingerprint (nil for a page
// without one).
func TestFingerprintSketch(t *testing.T) {
	db := mustOpen(t, "")
	with := testPage(1, "e.com")
	with.Sketch = bytes.Repeat([]byte{7, 0, 255}, 43)[:128]
	without := testPage(2, "e.com")
	mustCommit(t, db, Commit{Page: with})
	mustCommit(t, db, Commit{Page: without})
	got := map[DocID][]byte{}
	err := db.ForEachFingerprint(context.Background(), func(f Fingerprint) error {
		p := with
		if f.DocID == without.DocID {
			p = without
		}
		if f.DocID != p.DocID || f.URL != p.URL || f.TitleFP != p.TitleFP || f.ContentFP != p.ContentFP || f.FPFlags != p.FPFlags {
			t.Errorf("fingerprint = %+v", f)
		}
		got[f.DocID] = f.Sketch
		return nil
	})
	if err != nil || len(got) != 2 {
		t.Fatalf("ForEachFingerprint: %d entries, err %v", len(got), err)
	}
	if !bytes.Equal(got[with.DocID], with.Sketch) {
		t.Errorf("sketch = %v, want %v", got[with.DocID], with.Sketch)
	}
	if got[without.DocID] != nil {
		t.Errorf("page without sketch: sketch = %v, want nil", got[without.DocID])
	}
}

// TestFingerprintEntryFormat pins the entry layout: one written before
// sketches existed decodes with a nil sketch; a truncated sketch is an
// error naming the entry.
func TestFingerprintEntryFormat(t *testing.T) {
	old := testPage(3, "e.com")
	v := encodeFP(old) // no sketch: the layout of every earlier entry
	r, err := decodeFP(old.DocID, v)
	if err != nil || r.Sketch != nil || r.URL != old.URL || r.ContentFP != old.ContentFP {
		t.Fatalf("old entry: %+v, %v", r, err)
	}
	old.Sketch = []byte{1, 2, 3, 4}
	v = encodeFP(old)
	if r, err = decodeFP(old.DocID, v); err != nil || !bytes.Equal(r.Sketch, old.Sketch) {
		t.Fatalf("entry with sketch: %+v, %v", r, err)
	}
	_, err = decodeFP(old.DocID, v[:len(v)-1])
	if want := "fingerprint " + old.DocID.String(); err == nil || !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Fatalf("truncated sketch: err = %v, want one naming %q", err, want)
	}
}

// TestURLRecordSignature checks that a duplicate's optional content
// signature round-trips through Commit, ForEachURL and PageByURL-style
// reads, and that a record without one comes back with zero fields.
func TestURLRecordSignature(t *testing.T) {
	db := mustOpen(t, "")
	p := testPage(1, "e.com")
	mustCommit(t, db, Commit{Page: p})
	dup := &URLRecord{URL: "https://e.com/copy", DocID: p.DocID, Duplicate: true, Reason: "content", Distance: 4,
		ContentFP: 0xfeedface01234567, FPFlags: 2, Sketch: bytes.Repeat([]byte{9, 1}, 64)}
	plain := &URLRecord{URL: "https://e.com/same", DocID: p.DocID, Duplicate: true, Reason: "url"}
	mustCommit(t, db, Commit{URL: dup})
	mustCommit(t, db, Commit{URL: plain})
	got := map[string]URLRecord{}
	if err := db.ForEachURL(context.Background(), func(r URLRecord) error { got[r.URL] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("ForEachURL: %d records, want 3", len(got))
	}
	g := got[dup.URL]
	if g.ContentFP != dup.ContentFP || g.FPFlags != dup.FPFlags || !bytes.Equal(g.Sketch, dup.Sketch) ||
		g.DocID != dup.DocID || g.Reason != dup.Reason || g.Distance != dup.Distance || !g.HasSignature() {
		t.Errorf("duplicate with signature = %+v, want %+v", g, *dup)
	}
	for _, u := range []string{plain.URL, p.URL} {
		if g := got[u]; g.HasSignature() || g.Sketch != nil {
			t.Errorf("%s: record without signature came back with one: %+v", u, g)
		}
	}
	if _, rec, err := db.PageByURL(dup.URL); err != nil || rec.ContentFP != dup.ContentFP || !bytes.Equal(rec.Sketch, dup.Sketch) {
		t.Errorf("PageByURL(%s): %+v, %v", dup.URL, rec, err)
	}
}

// TestURLRecordFormat pins the record layout: a record written before the
// signature fields existed decodes unchanged with zero fields; a
// signature without a sketch round-trips; a truncated signature is an
// error naming the record.
func TestURLRecordFormat(t *testing.T) {
	old := URLRecord{URL: "https://e.com/a", DocID: 7, Duplicate: true, Reason: "title", Distance: 9,
		Status: 200, ContentType: "text/html", Err: "x"}
	// the layout of every record written before the signature fields
	e := enc{}
	e.byte(urlRecV1)
	e.u64(uint64(old.DocID))
	e.byte(1)
	e.str(old.Reason)
	e.varint(int64(old.Distance))
	e.varint(int64(old.Status))
	e.str(old.ContentType)
	e.time(old.FetchedAt)
	e.str(old.Err)
	if v := encodeURLRecord(&old); !bytes.Equal(v, e.b) {
		t.Fatalf("record without signature: encoding changed:\n got %x\nwant %x", v, e.b)
	}
	r, err := decodeURLRecord(old.URL, e.b)
	if err != nil || r.HasSignature() || r.Reason != old.Reason || r.Distance != old.Distance || r.Err != old.Err || !r.Duplicate {
		t.Fatalf("old record: %+v, %v", r, err)
	}
	withSig := old
	withSig.ContentFP, withSig.FPFlags = 42, 1 // exact-hash content: no sketch
	v := encodeURLRecord(&withSig)
	if r, err = decodeURLRecord(old.URL, v); err != nil || r.ContentFP != 42 || r.FPFlags != 1 || r.Sketch != nil {
		t.Fatalf("record with signature, no sketch: %+v, %v", r, err)
	}
	withSig.Sketch = []byte{1, 2, 3}
	v = encodeURLRecord(&withSig)
	_, err = decodeURLRecord(old.URL, v[:len(v)-1])
	if want := `URL record "https://e.com/a"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("truncated signature: err = %v, want one naming %s", err, want)
	}
}

// TestURLRecordNode: the node holding a duplicate's document (cluster
// mode) round-trips after the other optional blocks, alone or with them,
// and a record without one encodes as before.
func TestURLRecordNode(t *testing.T) {
	base := URLRecord{URL: "https://e.com/a", DocID: 7, Duplicate: true, Reason: "content", Distance: 2, Status: 200}
	plain := encodeURLRecord(&base)
	for _, r := range []URLRecord{
		{Node: "node2"},
		{Node: "n", ContentFP: 5, FPFlags: 1},
		{Node: "ñode", Hints: Hints{Canonical: "https://e.com/c"}, Validators: Validators{ETag: `"x"`}, Versions: 3, Edits: 2},
	} {
		want := base
		want.Node, want.ContentFP, want.FPFlags, want.Hints, want.Validators, want.Versions, want.Edits = r.Node, r.ContentFP, r.FPFlags, r.Hints, r.Validators, r.Versions, r.Edits
		got, err := decodeURLRecord(want.URL, encodeURLRecord(&want))
		if err != nil || got.Node != want.Node || got.ContentFP != want.ContentFP || got.Hints != want.Hints || got.Validators != want.Validators || got.Versions != want.Versions || got.Edits != want.Edits {
			t.Errorf("round trip of %+v: %+v, %v", want, got, err)
		}
	}
	if got, err := decodeURLRecord(base.URL, plain); err != nil || got.Node != "" {
		t.Errorf("record without node: %+v, %v", got, err)
	}
	withNode := base
	withNode.Node = "node2"
	if v := encodeURLRecord(&withNode); bytes.Equal(v, plain) || !bytes.HasPrefix(v, plain) {
		t.Errorf("node not appended after the existing fields: %x vs %x", v, plain)
	}
}
