package cluster

import "testing"

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
