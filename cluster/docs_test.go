package cluster

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestSnapshotKeepsMalformedEntries: a stream entry whose packed
// documents do not decode (written by something other than a node) is
// moved into the snapshot like any other; read back from it, it is one
// malformed entry (no URL) that the replay counts and skips, and the
// records after it still decode — the snapshot never stops a late node.
func TestSnapshotKeepsMalformedEntries(t *testing.T) {
	good := DocEntry{URL: "http://a.example/", Canonical: "http://a.example/", Sig: []byte{1, 2, 3}, Aliases: []string{"http://a.example/old"}}
	var b []byte
	for _, r := range [][3]string{
		{"1-0", "intruder", "\x7fcut short"}, // documents cut short
		{"2-0", "intruder", ""},              // no documents (an entry without field d)
		{"3-0", "n1", packDocs([]DocEntry{good, good})},
	} {
		b = appendString(b, r[0])
		b = appendString(b, r[1])
		b = appendString(b, r[2])
	}
	got, used := unpackSnap(b)
	if used != len(b) {
		t.Errorf("used %d of %d bytes", used, len(b))
	}
	if len(got) != 4 {
		t.Fatalf("%d entries, want 4: %+v", len(got), got)
	}
	for i, id := range []string{"1-0", "2-0"} {
		if got[i].ID != id || got[i].URL != "" || got[i].Node != "intruder" {
			t.Errorf("entry %d: %+v; want a malformed entry of %s (no URL)", i, got[i], id)
		}
	}
	for i, e := range got[2:] {
		if e.ID != "3-0" || e.Index != i || e.URL != good.URL || string(e.Sig) != string(good.Sig) || len(e.Aliases) != 1 {
			t.Errorf("document %d of 3-0: %+v", i, e)
		}
	}
	// the same in the log itself
	if es := docMessage("4-0", map[string]any{"n": "intruder", "u": "http://old.example/"}); len(es) != 1 || es[0].URL != "" {
		t.Errorf("log entry without documents: %+v; want one malformed entry", es)
	}
}

// TestSnapshotChunks: records split into chunks of at most the given
// packed size read back in order from their compressed chunks; a chunk
// APPENDed by an earlier version (packed records, uncompressed) reads as
// before; a chunk cut short is an error, not records made up.
func TestSnapshotChunks(t *testing.T) {
	var recs [][]byte
	var want []string
	for i := range 50 {
		id := fmt.Sprintf("%d-0", 1000+i)
		d := packDocs([]DocEntry{{URL: fmt.Sprintf("http://a.example/p/%d", i), Sig: bytes.Repeat([]byte{byte(i)}, 145)}})
		b := appendString(nil, id)
		b = appendString(b, "n1")
		recs = append(recs, appendString(b, d))
		want = append(want, id)
	}
	pieces := splitRecords(recs, 1000)
	if len(pieces) < 5 {
		t.Fatalf("%d pieces of at most 1000 bytes for %d records of ~190", len(pieces), len(recs))
	}
	var got []string
	packed, stored := 0, 0
	for _, p := range pieces {
		if len(p) > 1000 {
			t.Errorf("piece of %d bytes", len(p))
		}
		c := encodeChunk(p)
		packed, stored = packed+len(p), stored+len(c)
		es, err := decodeChunk(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			got = append(got, e.ID)
			if e.Node != "n1" || len(e.Sig) != 145 {
				t.Errorf("record %s: %+v", e.ID, e)
			}
		}
		if _, err := decodeChunk(c[:len(c)-3]); err == nil {
			t.Error("a compressed chunk cut short decoded")
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if stored >= packed {
		t.Errorf("compressed chunks %d bytes, packed %d", stored, packed)
	}
	old := bytes.Join(recs[:3], nil) // an uncompressed chunk
	if es, err := decodeChunk(old); err != nil || len(es) != 3 || es[2].ID != want[2] {
		t.Errorf("uncompressed chunk: %v, %v", es, err)
	}
	if _, err := decodeChunk(old[:len(old)-1]); err == nil {
		t.Error("an uncompressed chunk cut short decoded")
	}
}
