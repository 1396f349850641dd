package storage

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// The page record's extracted fields (Lang, Published, Author, Canonical,
// Markdown) go through Badger and back; a record without them is the
// record the previous version wrote, and still reads.
func TestPageExtractedFieldsRoundTrip(t *testing.T) {
	db, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	p := &Page{
		DocID: 0x1234, URL: "https://news.example/a", Status: 200, ContentType: "text/html",
		FetchedAt: time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC), Title: "A", Text: "the text",
		HTML: []byte("<html></html>"), Lang: "en", Published: "2026-11-26T10:00:00Z",
		Author: "Ada Lovelace", Canonical: "https://news.example/a", Markdown: "# A\n\nthe text\n",
	}
	old := &Page{DocID: 0x5678, URL: "https://news.example/old", Status: 200, FetchedAt: p.FetchedAt,
		Title: "Old", Text: "old text", HTML: []byte("<p>old</p>")}
	for _, pg := range []*Page{p, old} {
		if _, err := db.Commit(ctx, Commit{Page: pg}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Page(p.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Lang != p.Lang || got.Published != p.Published || got.Author != p.Author || got.Canonical != p.Canonical || got.Markdown != p.Markdown || got.Text != p.Text || !bytes.Equal(got.HTML, p.HTML) {
		t.Errorf("round trip: got %+v", got)
	}
	v := got.View(ViewOptions{Markdown: true})
	if v.Lang != "en" || v.Author != "Ada Lovelace" || v.Markdown != p.Markdown || v.MarkdownBytes != len(p.Markdown) {
		t.Errorf("view: %+v", v)
	}
	gotOld, err := db.Page(old.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if gotOld.Text != "old text" || gotOld.Markdown != "" || gotOld.Lang != "" {
		t.Errorf("old page: %+v", gotOld)
	}
	var md bytes.Buffer
	if err := db.ExportWith(ctx, &md, ExportOptions{Markdown: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"title: \"A\"\nlang: \"en\"", "# A\n\nthe text\n", "url: \"https://news.example/old\"", "\nold text\n"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown export lacks %q:\n%s", want, md.String())
		}
	}
}

// A page record as the previous version encoded it (no trailing fields)
// decodes, and a page without extracted fields encodes to exactly that.
func TestPageRecordWithoutExtractedFields(t *testing.T) {
	p := &Page{DocID: 7, URL: "https://docs.example/", Title: "T", Text: "text", HTML: []byte("<p>text</p>")}
	rec := encodePage(p, zstd.SpeedDefault)
	// the previous encoder's layout ends with the HTML blob
	e := enc{level: zstd.SpeedDefault}
	e.byte(pageRecV1)
	e.str(p.URL)
	e.str(p.FinalURL)
	e.varint(int64(p.Status))
	e.str(p.ContentType)
	e.time(p.FetchedAt)
	e.str(p.Title)
	e.u64(p.TitleFP)
	e.u64(p.ContentFP)
	e.byte(p.FPFlags)
	e.varint(int64(p.Depth))
	e.str(p.Referrer)
	e.blob([]byte(p.Text))
	e.blob(p.HTML)
	if !bytes.Equal(rec, e.b) {
		t.Fatalf("a page without extracted fields no longer encodes as before")
	}
	got, err := decodePage(7, e.b, true)
	if err != nil || got.Text != "text" || got.Markdown != "" {
		t.Fatalf("decode old record: %+v %v", got, err)
	}
	p.Markdown, p.Lang = "text\n", "en"
	got, err = decodePage(7, encodePage(p, zstd.SpeedDefault), false)
	if err != nil || got.Lang != "en" || got.Markdown != "" || got.Text != "" {
		t.Fatalf("decode without bodies: %+v %v", got, err)
	}
}
