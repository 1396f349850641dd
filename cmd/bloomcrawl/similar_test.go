package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestQuerySimilar: `query similar` by docId and by URL (a duplicate's URL
// resolves to its document), text and JSON, and bad input exits 2.
func TestQuerySimilar(t *testing.T) {
	dir := t.TempDir()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	pages := []*storage.Page{
		{DocID: 1, URL: "https://s.test/1", Title: "one", MinHashBands: []uint64{7, 8}, MinHash: []uint64{1, 2, 3, 4}},
		{DocID: 2, URL: "https://s.test/2", Title: "two", MinHashBands: []uint64{7, 9}, MinHash: []uint64{1, 2, 3, 0}},
		{DocID: 3, URL: "https://s.test/3", Title: "three", MinHashBands: []uint64{5, 6}, MinHash: []uint64{1, 2, 3, 4}},
	}
	for _, p := range pages {
		p.FetchedAt = time.Unix(1, 0)
		if _, err := db.Commit(context.Background(), storage.Commit{Page: p}); err != nil {
			t.Fatal(err)
		}
	}
	dup := &storage.URLRecord{URL: "https://mirror.test/1", DocID: 1, Duplicate: true, Reason: "content", FetchedAt: time.Unix(2, 0)}
	if _, err := db.Commit(context.Background(), storage.Commit{URL: dup}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	out, errOut, code := runSeenCmd(t, "query", "--store", dir, "similar", "0000000000000001")
	if code != 0 || !strings.Contains(out, "0000000000000002  1      0.75") || strings.Contains(out, "three") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runSeenCmd(t, "query", "--store", dir, "similar", "https://mirror.test/1", "--json", "--limit", "1")
	var ans struct {
		DocID   storage.DocID         `json:"doc_id"`
		Similar []storage.SimilarPage `json:"similar"`
	}
	if err := json.Unmarshal([]byte(out), &ans); code != 0 || err != nil || ans.DocID != 1 || len(ans.Similar) != 1 || ans.Similar[0].URL != "https://s.test/2" {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errOut)
	}
	for _, args := range [][]string{
		{"query", "--store", dir, "similar"},
		{"query", "--store", dir, "similar", "1234"},
		{"query", "--store", dir, "similar", "0x1", "--limit", "-1"},
	} {
		if _, errOut, code := runSeenCmd(t, args...); code != 2 {
			t.Errorf("%q: exit %d (%s), want 2", args, code, errOut)
		}
	}
	if _, _, code := runSeenCmd(t, "query", "--store", dir, "similar", "0x99"); code != 1 {
		t.Errorf("unknown docId: exit %d, want 1", code)
	}
}
