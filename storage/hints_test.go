package storage

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestHintsRoundTrip: what a site declared about a URL (canonical, sitemap
// lastmod and news fields, the sitemap mark) survives the URL record (with
// and without a duplicate's signature), the URL record written for a new
// page, and the queue entry; records without hints keep their old layout.
func TestHintsRoundTrip(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	lm := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	pub := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	h := Hints{Canonical: "http://e.com/a", LastMod: lm, NewsPublished: pub, NewsTitle: "新闻 title"}

	// a new page: its hints go to its URL record
	if _, err := db.Commit(ctx, Commit{Page: &Page{DocID: 1, URL: "http://e.com/a?ref=x", Status: 200, Title: "t", Text: "x", Hints: h}}); err != nil {
		t.Fatal(err)
	}
	_, rec, err := db.PageByURL("http://e.com/a?ref=x")
	if err != nil || rec.Hints != h {
		t.Fatalf("page's URL record hints = %+v, %v; want %+v", rec.Hints, err, h)
	}
	// a duplicate with a signature and hints, and one with hints only
	dup := URLRecord{URL: "http://e.com/b", DocID: 1, Duplicate: true, Reason: "canonical", ContentFP: 9, Sketch: []byte{1, 2}, Hints: Hints{Canonical: "http://e.com/a"}}
	plain := URLRecord{URL: "http://e.com/s.xml", Status: 200, Hints: Hints{Sitemap: true}}
	for _, r := range []URLRecord{dup, plain} {
		if _, err := db.Commit(ctx, Commit{URL: &r}); err != nil {
			t.Fatal(err)
		}
		_, got, _ := db.PageByURL(r.URL)
		if got.Hints != r.Hints || got.ContentFP != r.ContentFP || string(got.Sketch) != string(r.Sketch) || got.HasSignature() != r.HasSignature() {
			t.Fatalf("URL record %s: got %+v, want %+v", r.URL, got, r)
		}
	}
	// queue entries: with and without hints
	seqs, err := db.Commit(ctx, Commit{Enqueue: []QueueEntry{
		{URL: "http://e.com/n1", Depth: 1, Hints: Hints{LastMod: lm, NewsTitle: "n"}},
		{URL: "http://e.com/sitemap.xml", Hints: Hints{Sitemap: true, Probe: true}},
		{URL: "http://e.com/plain", Depth: 2, Referrer: "http://e.com/"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	q, err := db.QueueScan(0, 10)
	if err != nil || len(q) != 3 {
		t.Fatalf("QueueScan: %v, %v", q, err)
	}
	if q[0].Hints != (Hints{LastMod: lm, NewsTitle: "n"}) || q[1].Hints != (Hints{Sitemap: true, Probe: true}) || !q[2].Hints.IsZero() || q[2].Referrer != "http://e.com/" || q[0].Seq != seqs[0] {
		t.Fatalf("queue entries: %+v", q)
	}
	if v := encodeQueue(&QueueEntry{URL: "u", Depth: 1}); len(v) != 1+2+1+1 {
		t.Fatalf("queue entry without hints is %d bytes: layout changed", len(v))
	}
}

// TestValidatorsAndUpdate: a URL record's validators and change tracking
// round-trip (with and without hints or a signature before them); records
// without them keep their old layout; Commit.Update replaces a stored page
// record and refuses an unknown docId.
func TestValidatorsAndUpdate(t *testing.T) {
	db := mustOpen(t, "")
	ctx := context.Background()
	changed := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	val := Validators{ETag: `"abc"`, LastModified: "Mon, 23 Nov 2026 09:00:00 GMT"}
	if _, err := db.Commit(ctx, Commit{Page: &Page{DocID: 5, URL: "http://e.com/hub", Status: 200, Title: "v1", Text: "first", Validators: val}}); err != nil {
		t.Fatal(err)
	}
	if rec, err := db.URLRecord("http://e.com/hub"); err != nil || rec.Validators != val || rec.Versions != 0 {
		t.Fatalf("page's URL record: %+v, %v", rec, err)
	}
	for _, r := range []URLRecord{
		{URL: "http://e.com/hub", DocID: 5, Reason: ReasonNew, Status: 200, Validators: val, ChangedAt: changed, Versions: 2},
		{URL: "http://e.com/x", Status: 200, Hints: Hints{Canonical: "http://e.com/y"}, ChangedAt: changed},
		{URL: "http://e.com/z", DocID: 5, Duplicate: true, ContentFP: 3, Versions: 1},
	} {
		if _, err := db.Commit(ctx, Commit{URL: &r}); err != nil {
			t.Fatal(err)
		}
		got, err := db.URLRecord(r.URL)
		if err != nil || got.Validators != r.Validators || !got.ChangedAt.Equal(r.ChangedAt) || got.Versions != r.Versions || got.Hints != r.Hints || got.ContentFP != r.ContentFP {
			t.Fatalf("URL record %s: got %+v, %v; want %+v", r.URL, got, err, r)
		}
	}
	if _, err := db.Commit(ctx, Commit{Update: &Page{DocID: 5, URL: "http://e.com/hub", Status: 200, Title: "v2", Text: "second"}}); err != nil {
		t.Fatal(err)
	}
	if p, err := db.Page(5); err != nil || p.Title != "v2" || p.Text != "second" {
		t.Fatalf("updated page: %+v, %v", p, err)
	}
	if _, err := db.Commit(ctx, Commit{Update: &Page{DocID: 6, URL: "http://e.com/none", Title: "x"}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update of an unknown docId: %v, want ErrNotFound", err)
	}
}
