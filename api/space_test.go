package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestDiskFullStopsService: a store whose disk is below its reserve answers
// 507 Insufficient Storage, records nothing, and closes Stopped with an
// error wrapping storage.ErrNoSpace (serve and dedup --store stop on it).
func TestDiskFullStopsService(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := db.Space()
	if err != nil {
		t.Skipf("no free-space reading on this system: %v", err)
	}
	db.Close()
	db, err = storage.Open(dir, &storage.Options{MinFreeBytes: sp.Free + 1<<40})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc, err := api.NewService(context.Background(), mustDeduper(t), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.NewHandler(svc, db, api.HandlerOptions{}))
	defer srv.Close()
	if svc.Err() != nil {
		t.Fatalf("Err before any write: %v", svc.Err())
	}
	resp, err := http.Post(srv.URL+"/v1/docid", "application/json",
		strings.NewReader(`{"url":"http://full.example/a","title":"Disk full","content":"a document that cannot be recorded because the disk is full"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInsufficientStorage || !strings.Contains(string(body), "free") {
		t.Errorf("POST on a full disk: %d %s; want 507 and a message about free space", resp.StatusCode, body)
	}
	select {
	case <-svc.Stopped():
	default:
		t.Fatal("Stopped not closed after a disk-full commit")
	}
	if !errors.Is(svc.Err(), storage.ErrNoSpace) {
		t.Errorf("Err() = %v, want storage.ErrNoSpace", svc.Err())
	}
	if st, err := db.Stats(context.Background()); err != nil || st.Pages != 0 || st.URLs != 0 {
		t.Errorf("store after a refused commit: %+v, %v; want empty", st, err)
	}
}

func mustDeduper(t *testing.T) *contentdedup.Deduper {
	t.Helper()
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
