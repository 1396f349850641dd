package storage_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// A page, then a near-duplicate of it under another URL: the duplicate
// URL resolves to the first-seen page.
func Example() {
	dir, err := os.MkdirTemp("", "storage-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := storage.Open(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	ctx := context.Background()
	page := &storage.Page{
		DocID: 0x9c8d54272c1dcb22, URL: "https://docs.example/a.html", Status: 200,
		ContentType: "text/html", FetchedAt: time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
		Title: "A", Text: "the text of A", HTML: []byte("<html><title>A</title></html>"),
	}
	if _, err := db.Commit(ctx, storage.Commit{Page: page}); err != nil {
		log.Fatal(err)
	}
	dup := &storage.URLRecord{URL: "https://docs.example/copy-of-a.html", DocID: page.DocID,
		Duplicate: true, Reason: "content", Distance: 2, Status: 200}
	if _, err := db.Commit(ctx, storage.Commit{URL: dup}); err != nil {
		log.Fatal(err)
	}

	p, rec, err := db.PageByURL("https://docs.example/copy-of-a.html")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.DocID, p.URL, rec.Duplicate, rec.Reason, rec.Distance)
	st, _ := db.Stats(context.Background())
	fmt.Println(st.Pages, st.URLs, st.Duplicates, st.Hosts)
	// Output:
	// 9c8d54272c1dcb22 https://docs.example/a.html true content 2
	// 1 2 1 1
}
