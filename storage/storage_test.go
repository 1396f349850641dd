package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

func mustOpen(tb testing.TB, dir string) *DB {
	tb.Helper()
	if dir == "" {
		dir = tb.TempDir()
	}
	db, err := Open(dir, &Options{GCInterval: -1})
	if err != nil {
		tb.Fatalf("Open(%s): %v", dir, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func mustCommit(tb testing.TB, db *DB, c Commit) []uint64 {
	tb.Helper()
	seqs, err := db.Commit(context.Background(), c)
	if err != nil {
		tb.Fatalf("Commit: %v", err)
	}
	return seqs
}

var t0 = time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)

func testPage(i int, host string) *Page {
	u := fmt.Sprintf("https://%s/doc/%04d.html", host, i)
	html := fmt.Sprintf("<html><head><title>Doc %d</title></head><body>%s</body></html>", i,
		strings.Repeat(fmt.Sprintf("<p>paragraph of document %d about topic %d</p>", i, i%7), 50))
	return &Page{
		DocID: DocID(i)<<40 | 0xabc, URL: u, FinalURL: u, Status: 200,
		ContentType: "text/html; charset=utf-8", FetchedAt: t0.Add(time.Duration(i) * time.Second),
		Title: fmt.Sprintf("Doc %d", i), Text: strings.Repeat(fmt.Sprintf("document %d text. ", i), 40),
		HTML: []byte(html), TitleFP: uint64(i) * 31, ContentFP: uint64(i) * 17, FPFlags: uint8(i % 4),
		Depth: i % 5, Referrer: fmt.Sprintf("https://%s/", host),
	}
}

func TestPageRoundTrip(t *testing.T) {
	db := mustOpen(t, "")
	p := testPage(1, "example.com")
	mustCommit(t, db, Commit{Page: p})

	got, err := db.Page(p.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if !pagesEqual(got, *p) {
		t.Fatalf("Page round trip:\n got %+v\nwant %+v", got, *p)
	}
	got2, rec, err := db.PageByURL(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !pagesEqual(got2, *p) || rec.Duplicate || rec.DocID != p.DocID || rec.Reason != ReasonNew {
		t.Fatalf("PageByURL: rec %+v", rec)
	}
	if _, err := db.Page(12345); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Page(missing) err = %v, want ErrNotFound", err)
	}
	if _, _, err := db.PageByURL("https://nope/"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("PageByURL(missing) err = %v, want ErrNotFound", err)
	}
}

// TestCompressionLevels writes at every level and reads back with a store
// opened at another level (each record carries its own encoding).
func TestCompressionLevels(t *testing.T) {
	dir := t.TempDir()
	levels := []string{"fastest", "default", "better", "best"}
	for i, lvl := range levels {
		db, err := Open(dir, &Options{Compression: lvl, GCInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		mustCommit(t, db, Commit{Page: genPage(uint64(i + 1))})
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	db := mustOpen(t, dir)
	for i := range levels {
		got, err := db.Page(DocID(i + 1))
		if err != nil || !pagesEqual(got, *genPage(uint64(i + 1))) {
			t.Fatalf("page written at %s: %v", levels[i], err)
		}
	}
}

func pagesEqual(a, b Page) bool {
	return a.DocID == b.DocID && a.URL == b.URL && a.FinalURL == b.FinalURL && a.Status == b.Status &&
		a.ContentType == b.ContentType && a.FetchedAt.Equal(b.FetchedAt) && a.Title == b.Title &&
		a.Text == b.Text && bytes.Equal(a.HTML, b.HTML) && a.TitleFP == b.TitleFP &&
		a.ContentFP == b.ContentFP && a.FPFlags == b.FPFlags && a.Depth == b.Depth && a.Referrer == b.Referrer
}

func TestDuplicatesAndFirstSeen(t *testing.T) {
	db := mustOpen(t, "")
	p := testPage(1, "example.com")
	mustCommit(t, db, Commit{Page: p})
	dupURL := "https://mirror.example.com/doc/0001.html"
	mustCommit(t, db, Commit{URL: &URLRecord{URL: dupURL, DocID: p.DocID, Duplicate: true, Reason: "content", Distance: 2, Status: 200}})

	// Same docId again under a third URL: the first page is kept.
	again := testPage(1, "other.example.com")
	again.Title = "changed title"
	mustCommit(t, db, Commit{Page: again})

	got, rec, err := db.PageByURL(dupURL)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Duplicate || rec.Reason != "content" || rec.Distance != 2 || got.URL != p.URL {
		t.Fatalf("duplicate URL: rec %+v page URL %q", rec, got.URL)
	}
	got, rec, err = db.PageByURL(again.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Duplicate || rec.Reason != ReasonExistingDoc || got.Title != p.Title {
		t.Fatalf("second page with same docId: rec %+v, stored title %q (want first-seen %q)", rec, got.Title, p.Title)
	}
	urls, err := db.URLs(p.DocID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range urls {
		names = append(names, u.URL)
	}
	want := []string{p.URL, dupURL, again.URL}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("URLs = %v, want %v", names, want)
	}
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != 1 || st.URLs != 3 || st.Duplicates != 2 || st.Hosts != 1 {
		t.Fatalf("Stats = %+v", st)
	}

	// A URL re-pointed to another docId leaves the old docId's URL list.
	p2 := testPage(2, "example.com")
	mustCommit(t, db, Commit{Page: p2})
	mustCommit(t, db, Commit{URL: &URLRecord{URL: dupURL, DocID: p2.DocID, Duplicate: true, Reason: "title"}})
	urls, _ = db.URLs(p.DocID)
	if len(urls) != 2 {
		t.Fatalf("after re-pointing, URLs(%x) = %v, want 2 records", p.DocID, urls)
	}
	if _, err := db.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNoDocURL(t *testing.T) {
	db := mustOpen(t, "")
	mustCommit(t, db, Commit{URL: &URLRecord{URL: "https://e.com/x.pdf", Status: 200, ContentType: "application/pdf"}})
	_, rec, err := db.PageByURL("https://e.com/x.pdf")
	if !errors.Is(err, ErrNotFound) || rec.ContentType != "application/pdf" {
		t.Fatalf("PageByURL(non-HTML) = %+v, %v", rec, err)
	}
	st, _ := db.Stats(context.Background())
	if st.URLs != 1 || st.NoDoc != 1 || st.Pages != 0 {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestCommitValidation(t *testing.T) {
	db := mustOpen(t, "")
	cases := []struct {
		name string
		c    Commit
		want string
	}{
		{"zero docId", Commit{Page: &Page{URL: "https://e.com/"}}, "DocID is 0"},
		{"empty page URL", Commit{Page: &Page{DocID: 1}}, "page URL is empty"},
		{"empty URL record", Commit{URL: &URLRecord{}}, "URL record is empty"},
		{"newline in trace", Commit{Trace: []string{"https://e.com/a", "https://e.com/\nb"}}, "Trace[1]"},
		{"empty enqueue", Commit{Enqueue: []QueueEntry{{URL: ""}}}, "Enqueue[0] is empty"},
	}
	for _, tc := range cases {
		_, err := db.Commit(context.Background(), tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	st, _ := db.Stats(context.Background())
	if st.Pages+st.URLs+st.Queue+st.TraceChunks != 0 {
		t.Fatalf("rejected commits wrote something: %+v", st)
	}
}

func TestListPagination(t *testing.T) {
	db := mustOpen(t, "")
	hosts := []string{"a.example", "b.example", "c.example"}
	n := 0
	for i := 1; i <= 60; i++ {
		mustCommit(t, db, Commit{Page: testPage(i, hosts[i%3])})
		n++
	}
	collect := func(o ListOptions) []Page {
		t.Helper()
		var all []Page
		for calls := 0; ; calls++ {
			if calls > 100 {
				t.Fatal("pagination does not end")
			}
			ps, next, err := db.List(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) > o.Limit {
				t.Fatalf("List returned %d > limit %d", len(ps), o.Limit)
			}
			all = append(all, ps...)
			if next == "" {
				return all
			}
			o.After = next
		}
	}
	all := collect(ListOptions{Limit: 7})
	if len(all) != 60 {
		t.Fatalf("List all: %d pages, want 60", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].URL >= all[i].URL {
			t.Fatalf("List not in URL order at %d: %q >= %q", i, all[i-1].URL, all[i].URL)
		}
	}
	if all[0].HTML != nil || all[0].Text != "" {
		t.Fatal("List without Bodies returned bodies")
	}
	byHost := collect(ListOptions{Host: "B.example", Limit: 6})
	if len(byHost) != 20 {
		t.Fatalf("List host b: %d, want 20", len(byHost))
	}
	for _, p := range byHost {
		if !strings.HasPrefix(p.URL, "https://b.example/") {
			t.Fatalf("List host b returned %s", p.URL)
		}
	}
	byPrefix := collect(ListOptions{Prefix: "https://c.example/doc/001", Limit: 2})
	// c.example gets i%3==2: 11, 14, 17 in 0010..0019.
	if len(byPrefix) != 3 {
		t.Fatalf("List prefix: %v", urlsOf(byPrefix))
	}
	hostPrefix := collect(ListOptions{Host: "a.example", Prefix: "https://a.example/doc/002", Limit: 50})
	if len(hostPrefix) != 3 { // 21, 24, 27
		t.Fatalf("List host+prefix: %v", urlsOf(hostPrefix))
	}
	since, until := t0.Add(10*time.Second), t0.Add(20*time.Second)
	byTime := collect(ListOptions{Since: since, Until: until, Limit: 4})
	if len(byTime) != 10 {
		t.Fatalf("List time range: %d pages, want 10 (%v)", len(byTime), urlsOf(byTime))
	}
	for i, p := range byTime {
		if p.FetchedAt.Before(since) || !p.FetchedAt.Before(until) || (i > 0 && p.FetchedAt.Before(byTime[i-1].FetchedAt)) {
			t.Fatalf("time range result %d: %v", i, p.FetchedAt)
		}
	}
	withBodies, _, err := db.List(context.Background(), ListOptions{Limit: 1, Bodies: true})
	if err != nil || len(withBodies) != 1 || len(withBodies[0].HTML) == 0 {
		t.Fatalf("List Bodies: %v", err)
	}
	if _, _, err := db.List(context.Background(), ListOptions{After: "!!"}); !errors.Is(err, ErrBadCursor) || !strings.Contains(err.Error(), `storage: bad cursor "!!"`) {
		t.Fatalf("bad cursor err = %v", err)
	}
	if _, _, err := db.List(context.Background(), ListOptions{Host: "a.example", After: "Yw"}); !errors.Is(err, ErrBadCursor) { // "c": a URL-index cursor
		t.Fatal("cursor from another index accepted")
	}
}

func urlsOf(ps []Page) []string {
	var s []string
	for _, p := range ps {
		s = append(s, p.URL)
	}
	return s
}

func TestQueueTraceMetaFingerprints(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, dir)
	seqs := mustCommit(t, db, Commit{Enqueue: []QueueEntry{{URL: "https://e.com/1", Depth: 1}, {URL: "https://e.com/2", Depth: 2, Referrer: "https://e.com/"}}, Trace: []string{"https://e.com/1", "https://e.com/2"}})
	if len(seqs) != 2 || seqs[0] == 0 || seqs[1] <= seqs[0] {
		t.Fatalf("seqs = %v", seqs)
	}
	seqs2 := mustCommit(t, db, Commit{Page: testPage(1, "e.com"), Enqueue: []QueueEntry{{URL: "https://e.com/3"}}, Dequeue: []uint64{seqs[0]}, Trace: []string{"https://e.com/3"}})
	if err := db.PutMeta("filter", []byte("snapshot-bytes")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = mustOpen(t, dir)
	q, err := db.QueueScan(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 2 || q[0].Seq != seqs[1] || q[0].URL != "https://e.com/2" || q[0].Referrer != "https://e.com/" || q[0].Depth != 2 || q[1].Seq != seqs2[0] {
		t.Fatalf("QueueScan = %+v", q)
	}
	q, _ = db.QueueScan(seqs[1], 10)
	if len(q) != 1 || q[0].URL != "https://e.com/3" {
		t.Fatalf("QueueScan(after) = %+v", q)
	}
	q, _ = db.QueueScan(0, 1)
	if len(q) != 1 {
		t.Fatalf("QueueScan(limit 1) = %+v", q)
	}
	if n, _ := db.QueueLen(context.Background()); n != 2 {
		t.Fatalf("QueueLen = %d", n)
	}
	// Seqs keep growing after a reopen.
	s3 := mustCommit(t, db, Commit{Enqueue: []QueueEntry{{URL: "https://e.com/4"}}})
	if s3[0] <= seqs2[0] {
		t.Fatalf("seq after reopen %d <= %d", s3[0], seqs2[0])
	}
	var trace []string
	if err := db.ForEachTrace(context.Background(), func(u string) error { trace = append(trace, u); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(trace) != "[https://e.com/1 https://e.com/2 https://e.com/3]" {
		t.Fatalf("trace = %v", trace)
	}
	v, err := db.GetMeta("filter")
	if err != nil || string(v) != "snapshot-bytes" {
		t.Fatalf("GetMeta = %q, %v", v, err)
	}
	// A snapshot far above one transaction's in-memory limit.
	big := bytes.Repeat([]byte("0123456789abcdef"), 24<<20/16)
	if err := db.PutMeta("filter", big); err != nil {
		t.Fatalf("PutMeta(24 MiB): %v", err)
	}
	if v, err := db.GetMeta("filter"); err != nil || !bytes.Equal(v, big) {
		t.Fatalf("GetMeta(24 MiB): %d bytes, %v", len(v), err)
	}
	if err := db.DeleteMeta("filter"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetMeta("filter"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetMeta after DeleteMeta: %v", err)
	}
	if _, err := db.GetMeta("missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetMeta(missing) err = %v", err)
	}
	p := testPage(1, "e.com")
	n := 0
	err = db.ForEachFingerprint(context.Background(), func(f Fingerprint) error {
		n++
		if f.DocID != p.DocID || f.URL != p.URL || f.TitleFP != p.TitleFP || f.ContentFP != p.ContentFP || f.FPFlags != p.FPFlags {
			t.Errorf("fingerprint = %+v", f)
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("ForEachFingerprint: n=%d err=%v", n, err)
	}
	n = 0
	if err := db.ForEachURL(context.Background(), func(r URLRecord) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("ForEachURL: n=%d err=%v", n, err)
	}
	stop := errors.New("stop here")
	if err := db.ForEachURL(context.Background(), func(URLRecord) error { return stop }); err != stop {
		t.Fatalf("ForEachURL callback error = %v, want it returned as is", err)
	}
}

func TestExport(t *testing.T) {
	db := mustOpen(t, "")
	p := testPage(3, "e.com")
	p.DocID = 0xfedcba9876543210 // above 2^53
	mustCommit(t, db, Commit{Page: p})
	mustCommit(t, db, Commit{URL: &URLRecord{URL: "https://e.com/copy", DocID: p.DocID, Duplicate: true, Reason: "url"}})
	var buf bytes.Buffer
	if err := db.Export(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("export lines = %d", len(lines))
	}
	var rec PageView
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lines[0], `"doc_id":"fedcba9876543210"`) {
		t.Errorf("export line %s: want the docId as 16 hex digits", lines[0])
	}
	if rec.DocID != p.DocID || rec.URL != p.URL || rec.Text == nil || *rec.Text != p.Text || rec.HTML != "" ||
		len(rec.Duplicates) != 1 || rec.Duplicates[0] != "https://e.com/copy" {
		t.Fatalf("export record = %+v", rec)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Run("locked", func(t *testing.T) {
		dir := t.TempDir()
		db := mustOpen(t, dir)
		_ = db
		_, err := Open(dir, nil)
		if !errors.Is(err, ErrLocked) || err.Error() != "storage: store "+dir+" is in use" {
			t.Fatalf("second Open err = %v, want ErrLocked naming the dir", err)
		}
		if _, err := Open(dir, &Options{ReadOnly: true}); !errors.Is(err, ErrLocked) {
			t.Fatalf("read-only Open while writer holds it: err = %v, want ErrLocked", err)
		}
	})
	t.Run("readonly shared", func(t *testing.T) {
		dir := t.TempDir()
		db := mustOpen(t, dir)
		mustCommit(t, db, Commit{Page: testPage(1, "e.com")})
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		r1, err := Open(dir, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r1.Close()
		r2, err := Open(dir, &Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("second reader: %v", err)
		}
		defer r2.Close()
		if _, err := r2.Page(testPage(1, "e.com").DocID); err != nil {
			t.Fatal(err)
		}
		if _, err := r1.Commit(context.Background(), Commit{Trace: []string{"x"}}); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("Commit on read-only: %v", err)
		}
		if _, err := Open(dir, nil); !errors.Is(err, ErrLocked) {
			t.Fatalf("writer Open while readers hold it: err = %v, want ErrLocked", err)
		}
	})
	t.Run("creates missing dir", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "a", "b")
		db := mustOpen(t, dir)
		db.Close()
		if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("not a store", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
		_, err := Open(dir, nil)
		if !errors.Is(err, ErrNotStore) {
			t.Fatalf("Open(non-store dir) err = %v", err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "hello" {
			t.Fatal("non-store dir modified")
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Fatalf("Open wrote into a non-store dir: %d entries", len(ents))
		}
	})
	t.Run("unknown version", func(t *testing.T) {
		dir := t.TempDir()
		db := mustOpen(t, dir)
		db.bdb.Update(func(txn *badgerTxn) error { return txn.Set(keyVersion, []byte{0, 0, 0, 99}) })
		db.Close()
		_, err := Open(dir, nil)
		if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "version 99") {
			t.Fatalf("Open(v99) err = %v", err)
		}
	})
	t.Run("bad options", func(t *testing.T) {
		if _, err := Open(t.TempDir(), &Options{GCDiscardRatio: 2}); err == nil || !strings.Contains(err.Error(), "GCDiscardRatio") {
			t.Fatalf("err = %v", err)
		}
		if _, err := Open(t.TempDir(), &Options{Compression: "ultra"}); err == nil || !strings.Contains(err.Error(), `Compression "ultra"`) {
			t.Fatalf("err = %v", err)
		}
	})
}

type badgerTxn = badger.Txn

// TestCheckFindsProblems removes records behind the package's back: Check
// must name each broken invariant.
func TestCheckFindsProblems(t *testing.T) {
	db := mustOpen(t, "")
	for i := 1; i <= 3; i++ {
		mustCommit(t, db, Commit{Page: testPage(i, "e.com")})
	}
	if _, err := db.Check(context.Background()); err != nil {
		t.Fatalf("clean store: %v", err)
	}
	p1, p2 := testPage(1, "e.com"), testPage(2, "e.com")
	err := db.bdb.Update(func(txn *badgerTxn) error {
		if err := txn.Delete(fpKey(p1.DocID)); err != nil {
			return err
		}
		return txn.Delete(pageKey(p2.DocID)) // its indexes now dangle
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Check(context.Background())
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Check err = %v, want ErrCorrupt", err)
	}
	for _, want := range []string{
		fmt.Sprintf("page %016x: no fingerprint entry", p1.DocID),
		fmt.Sprintf("points at missing page %016x", p2.DocID),
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error lacks %q:\n%v", want, err)
		}
	}
}

// TestListHostPorts: a host without a port lists every port of it, and
// not hosts that merely start with the same name.
func TestListHostPorts(t *testing.T) {
	db := mustOpen(t, "")
	hosts := []string{"site.test", "site.test:8080", "site.test:9090", "site.testing", "other.test"}
	for i, h := range hosts {
		for j := 0; j < 3; j++ {
			p := testPage(i*10+j+1, h)
			mustCommit(t, db, Commit{Page: p})
		}
	}
	var got []string
	o := ListOptions{Host: "Site.Test", Limit: 2}
	for {
		ps, next, err := db.List(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, urlsOf(ps)...)
		if next == "" {
			break
		}
		o.After = next
	}
	if len(got) != 9 {
		t.Fatalf("List(site.test) = %d pages, want 9 (3 ports × 3): %v", len(got), got)
	}
	for _, u := range got {
		if h := hostOf(u); h != "site.test" && !strings.HasPrefix(h, "site.test:") {
			t.Fatalf("List(site.test) returned %s", u)
		}
	}
	ps, _, err := db.List(context.Background(), ListOptions{Host: "site.test:8080"})
	if err != nil || len(ps) != 3 {
		t.Fatalf("List(site.test:8080) = %v, %v", urlsOf(ps), err)
	}
}

// TestStatsDiskBytes: DiskBytes counts the space the store really occupies,
// not the apparent size of Badger's preallocated files (hundreds of MB for
// a store holding a few KB).
func TestStatsDiskBytes(t *testing.T) {
	db := mustOpen(t, "")
	mustCommit(t, db, Commit{Page: testPage(1, "example.com")})
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.DiskBytes <= 0 || st.DiskBytes > 16<<20 {
		t.Fatalf("DiskBytes = %d for a one-page store; want a few KB to a few MB", st.DiskBytes)
	}
}

// TestOpenCompressedTables: a store whose LSM tables were written with ZSTD
// block compression (every store before tables went uncompressed) opens,
// reads, takes new commits and compacts its old tables into uncompressed
// ones without losing a record.
func TestOpenCompressedTables(t *testing.T) {
	dir := t.TempDir()
	defer func(c options.CompressionType) { tableCompression = c }(tableCompression)
	tableCompression = options.ZSTD
	db := mustOpen(t, dir)
	const n = 60
	for i := uint64(1); i <= n; i++ {
		mustCommit(t, db, Commit{Page: genPage(i)})
	}
	if err := db.Close(); err != nil { // flushes the memtable into a table
		t.Fatal(err)
	}
	if c := tableCompressions(t, dir); c[options.ZSTD] == 0 || len(c) != 1 {
		t.Fatalf("tables written with ZSTD: %v", c)
	}

	tableCompression = options.None
	db = mustOpen(t, dir)
	for i := uint64(n + 1); i <= 2*n; i++ {
		mustCommit(t, db, Commit{Page: genPage(i)})
	}
	if err := db.bdb.Flatten(1); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if c := tableCompressions(t, dir); c[options.None] == 0 {
		t.Fatalf("no uncompressed table after new commits: %v", c)
	}
	db = mustOpen(t, dir)
	for i := uint64(1); i <= 2*n; i++ {
		got, err := db.Page(DocID(i))
		if err != nil || !pagesEqual(got, *genPage(i)) {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	rep, err := db.Check(context.Background())
	if err != nil || rep.Pages != 2*n {
		t.Fatalf("Check: %+v, %v; want %d pages", rep, err, 2*n)
	}
}

// tableCompressions counts the LSM tables of the closed store in dir by
// the block compression its manifest records for them.
func tableCompressions(t *testing.T, dir string) map[options.CompressionType]int {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, _, err := badger.ReplayManifestFile(f, 0, badger.DefaultOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	c := map[options.CompressionType]int{}
	for _, tm := range m.Tables {
		c[tm.Compression]++
	}
	return c
}
