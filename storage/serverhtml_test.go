package storage

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// A rendered page keeps the server's HTML beside its rendered DOM: it goes
// through Badger and back, the view shows both with ViewOptions.HTML, and
// a page without it encodes as before (no trailing blob).
func TestPageServerHTMLRoundTrip(t *testing.T) {
	db, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := &Page{DocID: 0x42, URL: "https://spa.example/r/1", Status: 200, FetchedAt: time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC),
		Title: "Route 1", Text: "rendered text", HTML: []byte(`<html><body><div id="root"><p>rendered text</p></div></body></html>`),
		ServerHTML: []byte(`<html><body><div id="root"></div></body></html>`)}
	if _, err := db.Commit(context.Background(), Commit{Page: p}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Page(p.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.ServerHTML, p.ServerHTML) || !bytes.Equal(got.HTML, p.HTML) {
		t.Fatalf("round trip: server %q, html %q", got.ServerHTML, got.HTML)
	}
	v := got.View(ViewOptions{HTML: true})
	if !v.Rendered || v.ServerHTML != string(p.ServerHTML) || v.HTML != string(p.HTML) || v.ServerHTMLBytes != len(p.ServerHTML) {
		t.Errorf("view: %+v", v)
	}
	if v := got.View(ViewOptions{}); !v.Rendered || v.ServerHTML != "" || v.HTML != "" {
		t.Errorf("view without bodies: %+v", v)
	}
	plain := *p
	plain.ServerHTML = nil
	if a, b := len(encodePage(&plain, zstd.SpeedDefault)), len(encodePage(p, zstd.SpeedDefault)); a >= b {
		t.Errorf("a page without server HTML encodes to %d bytes, with it %d", a, b)
	}
	d, err := decodePage(7, encodePage(&plain, zstd.SpeedDefault), true)
	if err != nil || d.ServerHTML != nil {
		t.Errorf("decode of a page without server HTML: %v %+v", err, d.ServerHTML)
	}
}
