package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// queryStore builds a store with 25 pages on two hosts and one duplicate.
func queryStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	for i := 1; i <= 25; i++ {
		host := "a.test"
		if i%5 == 0 {
			host = "b.test"
		}
		p := &storage.Page{
			DocID: 0xf000000000000000 + storage.DocID(i), URL: fmt.Sprintf("https://%s/p/%02d", host, i), Status: 200,
			ContentType: "text/html", FetchedAt: t0.Add(time.Duration(i) * time.Minute),
			Title: fmt.Sprintf("Page %d", i), Text: fmt.Sprintf("text of page %d", i),
			HTML: []byte(fmt.Sprintf("<html><title>Page %d</title></html>", i)),
		}
		if _, err := db.Commit(context.Background(), storage.Commit{Page: p}); err != nil {
			t.Fatal(err)
		}
	}
	dup := &storage.URLRecord{URL: "https://a.test/copy-of-3", DocID: 0xf000000000000003, Duplicate: true, Reason: "content", Distance: 1, Status: 200}
	if _, err := db.Commit(context.Background(), storage.Commit{URL: dup}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runQ(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"query"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

func TestQueryCommand(t *testing.T) {
	dir := queryStore(t)

	out, stderr, code := runQ(t, "--store", dir, "stats", "--json")
	if code != 0 {
		t.Fatalf("stats --json: exit %d: %s", code, stderr)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("stats --json is not one JSON object: %v\n%s", err, out)
	}
	for k, want := range map[string]float64{"pages": 25, "urls": 26, "duplicates": 1, "hosts": 2} {
		if st[k] != want {
			t.Errorf("stats %s = %v, want %v", k, st[k], want)
		}
	}
	if d, _ := st["disk_bytes"].(float64); d <= 0 {
		t.Errorf("stats disk_bytes = %v", st["disk_bytes"])
	}

	out, _, code = runQ(t, "--store", dir, "url", "https://a.test/copy-of-3")
	if code != 0 || !strings.Contains(out, "duplicate  yes (content, distance 1)") || !strings.Contains(out, "https://a.test/p/03") {
		t.Fatalf("url (duplicate): exit %d\n%s", code, out)
	}

	out, _, code = runQ(t, "--store", dir, "--json", "doc", "f000000000000003")
	var doc struct {
		DocID string `json:"doc_id"`
		Text  string `json:"text"`
		URLs  []struct {
			URL string `json:"url"`
		} `json:"urls"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.DocID != "f000000000000003" || doc.Text != "text of page 3" || len(doc.URLs) != 2 {
		t.Fatalf("doc --json: exit %d\n%s", code, out)
	}
	// Flags after the argument; raw HTML.
	if out, _, code = runQ(t, "--store", dir, "doc", "0xf000000000000003", "--html"); code != 0 || out != "<html><title>Page 3</title></html>" {
		t.Fatalf("doc --html: exit %d\n%s", code, out)
	}
	// Decimal is refused (it was accepted before docIds had one syntax),
	// with the form to use.
	if _, stderr, code := runQ(t, "--store", dir, "doc", fmt.Sprint(uint64(0xf000000000000003))); code != 2 ||
		!strings.Contains(stderr, "want 16 hexadecimal digits as printed") {
		t.Fatalf("doc decimal: exit %d\n%s", code, stderr)
	}

	out, _, code = runQ(t, "--store", dir, "dups", "https://a.test/p/03")
	if code != 0 || !strings.Contains(out, "https://a.test/copy-of-3  duplicate") || !strings.Contains(out, "original") {
		t.Fatalf("dups: exit %d\n%s", code, out)
	}

	// Paginate b.test (5 pages) two at a time.
	var got []string
	after := ""
	for i := 0; i < 10; i++ {
		args := []string{"--store", dir, "list", "--json", "--host", "b.test", "--limit", "2"}
		if after != "" {
			args = append(args, "--after", after)
		}
		out, stderr, code = runQ(t, args...)
		if code != 0 {
			t.Fatalf("list: exit %d: %s", code, stderr)
		}
		var l struct {
			Pages []struct{ URL string } `json:"pages"`
			Next  string                 `json:"next"`
		}
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Pages {
			got = append(got, p.URL)
		}
		if after = l.Next; after == "" {
			break
		}
	}
	if fmt.Sprint(got) != "[https://b.test/p/05 https://b.test/p/10 https://b.test/p/15 https://b.test/p/20 https://b.test/p/25]" {
		t.Fatalf("list --host b.test pages: %v", got)
	}
	out, _, code = runQ(t, "--store", dir, "list", "--since", "2026-11-22T03:10:00Z", "--until", "2026-11-22T03:12:00Z")
	if code != 0 || strings.Count(out, "https://") != 2 {
		t.Fatalf("list --since/--until: exit %d\n%s", code, out)
	}

	out, _, code = runQ(t, "--store", dir, "check")
	if code != 0 || !strings.Contains(out, "checked 25 pages, 26 URL records") || !strings.Contains(out, "store is consistent") {
		t.Fatalf("check: exit %d\n%s", code, out)
	}

	out, _, code = runQ(t, "--store", dir, "export")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 25 {
		t.Fatalf("export: exit %d, %d lines", code, len(lines))
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"stats"}, 2, "--store DIR is required"},
		{[]string{"--store", dir}, 2, "missing subcommand"},
		{[]string{"--store", dir, "frob"}, 2, "unknown query subcommand"},
		{[]string{"--store", dir, "doc", "xyz"}, 2, `bad docId "xyz": want 16 hexadecimal digits`},
		{[]string{"--store", dir, "doc", "1234"}, 2, `bad docId "1234": want 16 hexadecimal digits as printed (e.g. 00000000000004d2) or 0x`},
		{[]string{"--store", dir, "dups", "1234"}, 2, `bad docId "1234"`},
		{[]string{"--store", dir, "doc", "00000000000000aa"}, 1, "not found"},
		{[]string{"--store", dir, "url", "https://nowhere.test/"}, 1, "is not in the store"},
		{[]string{"--store", dir, "list", "--after", "bogus!"}, 1, "bad cursor"},
		{[]string{"--store", dir, "list", "--since", "yesterday"}, 2, "RFC 3339"},
		{[]string{"--store", t.TempDir() + "/missing", "stats"}, 1, "does not exist"},
	} {
		_, stderr, code := runQ(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("query %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}

func TestQueryLockedStore(t *testing.T) {
	dir := queryStore(t)
	db, err := storage.Open(dir, nil) // a running crawl
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, stderr, code := runQ(t, "--store", dir, "stats")
	if code != 1 || !strings.Contains(stderr, "storage: store "+dir+" is in use") {
		t.Fatalf("query on a locked store: exit %d, stderr %q", code, stderr)
	}
}

// TestQueryRecoversCrashedStore queries a copy of a store taken while it
// was open for writing (what a killed crawl leaves behind): the read-only
// open needs log replay, so query recovers the store first.
func TestQueryRecoversCrashedStore(t *testing.T) {
	src := t.TempDir()
	db, err := storage.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := &storage.Page{DocID: 42, URL: "https://c.test/", Title: "crashed", HTML: []byte("<html></html>")}
	if _, err := db.Commit(context.Background(), storage.Commit{Page: p}); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	copySparse(t, src, dst)
	if _, err := storage.Open(dst, &storage.Options{ReadOnly: true}); !errors.Is(err, storage.ErrNeedsRecovery) {
		t.Fatalf("read-only open of the copy: err = %v, want ErrNeedsRecovery", err)
	}
	out, stderr, code := runQ(t, "--store", dst, "doc", "000000000000002a")
	if code != 0 || !strings.Contains(out, "crashed") {
		t.Fatalf("query on a crashed store: exit %d, stderr %q\n%s", code, stderr, out)
	}
}

// copySparse copies the files of src into dst, seeking over zero blocks
// (Badger preallocates its log files: hundreds of MB of zeros).
func copySparse(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]byte, 64<<10)
	for _, e := range ents {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(zero))
		var size int64
		for {
			n, err := io.ReadFull(in, buf)
			if n > 0 {
				if bytes.Equal(buf[:n], zero[:n]) {
					_, err = out.Seek(int64(n), io.SeekCurrent)
				} else {
					_, err = out.Write(buf[:n])
				}
				if err != nil {
					t.Fatal(err)
				}
				size += int64(n)
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := out.Truncate(size); err != nil {
			t.Fatal(err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
