package archive_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// fakeStore holds two pages, a URL mapped to the first one's document and
// a URL whose page is missing.
type fakeStore struct {
	pages map[storage.DocID]storage.Page
}

func (s fakeStore) ForEachURL(ctx context.Context, fn func(storage.URLRecord) error) error {
	for _, u := range []storage.URLRecord{
		{URL: "http://a.test/1", DocID: 1},
		{URL: "http://a.test/copy-of-1", DocID: 1, Duplicate: true},
		{URL: "http://a.test/old", DocID: 2},
		{URL: "http://a.test/gone", DocID: 3},
		{URL: "http://a.test/err"},
	} {
		if err := fn(u); err != nil {
			return err
		}
	}
	return nil
}

func (s fakeStore) Page(id storage.DocID) (storage.Page, error) {
	if p, ok := s.pages[id]; ok {
		return p, nil
	}
	return storage.Page{}, fmt.Errorf("page %s: %w", id, storage.ErrNotFound)
}

// TestWriteWACZ packages the files of two WARC directories (as a
// cluster's nodes write them) and checks the package against the WACZ
// specification: pages are the stored documents under their final URL,
// with text only when asked; an index over ZipNumAbove lines is written
// as a ZipNum index holding the same lines; two WARC files of one name are
// refused.
func TestWriteWACZ(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	var files []string
	for i, dir := range []string{t.TempDir(), t.TempDir()} {
		db := mustOpen(t, t.TempDir())
		w := open(t, dir, db, 0)
		for j := range 3 {
			if err := w.Write(ctx, archive.Fetch{Exchanges: []*archive.Exchange{exchange(fmt.Sprintf("http://a.test/%d/%d", i, j), fmt.Sprintf("<p>%d %d</p>", i, j), t0)}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		db.Close()
		files = append(files, w.Files()...)
		time.Sleep(2 * time.Millisecond) // file names carry the millisecond
	}
	st := fakeStore{pages: map[storage.DocID]storage.Page{
		1: {DocID: 1, URL: "http://a.test/1", FetchedAt: t0, Title: "One", Text: "one text"},
		2: {DocID: 2, URL: "http://a.test/old", FinalURL: "http://a.test/new", FetchedAt: t0, Title: "Two", Text: "two text"},
	}}
	for _, text := range []bool{false, true} {
		name := filepath.Join(t.TempDir(), "x.wacz")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := archive.WriteWACZ(ctx, f, files, archive.WACZOptions{Pages: st, Text: text, Created: t0})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if ws.WARCs != 2 || ws.IndexLines != 6 || ws.Pages != 2 {
			t.Errorf("stats %+v, want 2 WARCs, 6 index lines, 2 pages", ws)
		}
		w, errs := warccheck.CheckWACZ(name)
		for _, e := range errs {
			t.Error(e)
		}
		if w == nil {
			t.FailNow()
		}
		var got []string
		for _, p := range w.Pages {
			got = append(got, fmt.Sprintf("%v %v %v %v", p["url"], p["ts"], p["title"], p["text"]))
		}
		want := "[http://a.test/1 2026-11-27T01:00:00Z One <nil> http://a.test/new 2026-11-27T01:00:00Z Two <nil>]"
		if text {
			want = strings.ReplaceAll(strings.Replace(want, "<nil>", "one text", 1), "<nil>", "two text")
		}
		if fmt.Sprint(got) != want {
			t.Errorf("pages (text %v) %v, want %s", text, got, want)
		}
		if w.Package.Created != "2026-11-27T01:00:00Z" || len(w.Package.Resources) != 4 {
			t.Errorf("datapackage %+v", w.Package)
		}
	}
	// a ZipNum index: 6 lines in blocks of 4 and 2, the same lines
	var plain []string
	for _, zn := range []archive.WACZOptions{{ZipNumAbove: -1}, {ZipNumAbove: 5, ZipNumBlock: 4}, {ZipNumAbove: 6}} {
		name := filepath.Join(t.TempDir(), "z.wacz")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		zn.Pages, zn.Created = st, t0
		_, err = archive.WriteWACZ(ctx, f, files, zn)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		w, errs := warccheck.CheckWACZ(name)
		for _, e := range errs {
			t.Errorf("%+v: %v", zn, e)
		}
		if w == nil {
			t.FailNow()
		}
		blocks := 0
		if idx := w.Entries["indexes/index.idx"]; idx != nil {
			rc, _ := idx.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			blocks = strings.Count(string(b), "\n") - 1
		}
		wantZip := zn.ZipNumAbove == 5
		if w.ZipNum != wantZip || (wantZip && blocks != 2) || len(w.Package.Resources) != map[bool]int{false: 4, true: 5}[wantZip] {
			t.Errorf("%+v: ZipNum %v with %d blocks, %d resources", zn, w.ZipNum, blocks, len(w.Package.Resources))
		}
		if plain == nil {
			plain = w.Index
		} else if fmt.Sprint(w.Index) != fmt.Sprint(plain) {
			t.Errorf("%+v: index %q, want %q", zn, w.Index, plain)
		}
	}
	if _, err := archive.WriteWACZ(ctx, &strings.Builder{}, []string{files[0], files[0]}, archive.WACZOptions{}); err == nil || !strings.Contains(err.Error(), "two WARC files named") {
		t.Errorf("the same file twice: %v", err)
	}
}
