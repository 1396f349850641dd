package archive_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// TestSURT checks SURT against the keys Node warcio's getSurt computes
// (testdata/surt.jsonl: [url, key] per line, made with warcio 2.4.11:
// NODE_PATH=.ci/node_modules node -e 'const w=require("warcio"); ...
// console.log(JSON.stringify([u, w.getSurt(u)]))').
func TestSURT(t *testing.T) {
	f, err := os.Open("testdata/surt.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c [2]string
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if got := archive.SURT(c[0]); got != c[1] {
			t.Errorf("SURT(%q) = %q, warcio says %q", c[0], got, c[1])
		}
		n++
	}
	if n < 20 {
		t.Fatalf("%d cases", n)
	}
}

func ExampleSURT() {
	fmt.Println(archive.SURT("http://www.Example.com:8080/a/../B?b=2&a=1#top"))
	// Output: com,example:8080)/b?a=1&b=2
}

// TestCDXJ writes exchanges that exercise the index's rules (revisits,
// redirects, a missing and a repeated Content-Type, a HEAD request,
// near-duplicate metadata, non-ASCII and quoted URLs, file rotation) and
// checks that the .cdxj written beside each file equals IndexFiles' index
// of that file and, line for line, warcio's.
func TestCDXJ(t *testing.T) {
	dir := t.TempDir()
	db := mustOpen(t, t.TempDir())
	defer db.Close()
	w := open(t, dir, db, 2<<10)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 27, 1, 2, 3, 456789000, time.UTC)
	head := func(ex *archive.Exchange, resp string) *archive.Exchange {
		ex.Response = []byte(resp)
		return ex
	}
	fetches := []archive.Fetch{
		{Exchanges: []*archive.Exchange{exchange("http://www.example.org/a?b=1&a=2", "<p>one</p>", t0)}},
		{Exchanges: []*archive.Exchange{exchange("http://example.org/copy", "<p>one</p>", t0.Add(time.Second))}}, // revisit
		{Exchanges: []*archive.Exchange{
			head(exchange("http://example.org/old", "moved", t0), "HTTP/1.1 301 Moved Permanently\r\nLocation: /new\r\n\r\n"), // no Content-Type
			head(exchange("http://example.org/new", "<p>new</p>", t0), "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=gbk\r\nContent-Type: text/plain\r\n\r\n"),
		}},
		{Exchanges: []*archive.Exchange{exchange("http://example.org/ä \"q\"", "<p>two</p>", t0)}},
		{Exchanges: []*archive.Exchange{exchange("http://example.org/near", "<p>two!</p>", t0)},
			Verdict: &archive.Verdict{DocID: 7, Duplicate: true, Reason: "content", Distance: 2, MatchURL: "http://example.org/x"}},
	}
	hd := exchange("http://example.org/head", "", t0)
	hd.Request = []byte("HEAD /head HTTP/1.1\r\nHost: example.org\r\n\r\n")
	fetches = append(fetches, archive.Fetch{Exchanges: []*archive.Exchange{hd}})
	for i := range 20 {
		fetches = append(fetches, archive.Fetch{Exchanges: []*archive.Exchange{exchange(fmt.Sprintf("http://example.org/p%d", i), fmt.Sprintf("<p>page %d</p>", i%5), t0)}})
	}
	for _, f := range fetches {
		if err := w.Write(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) < 2 {
		t.Fatalf("%d files, want several", len(files))
	}
	readAll(t, files)
	var all []byte
	for _, f := range files {
		ours, err := os.ReadFile(archive.CDXJName(f))
		if err != nil {
			t.Fatal(err)
		}
		var re bytes.Buffer
		if _, err := archive.IndexFiles(ctx, []string{f}, &re); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, re.Bytes()) {
			t.Errorf("%s: written index\n%s\ndiffers from IndexFiles'\n%s", f, ours, re.Bytes())
		}
		all = append(all, ours...)
	}
	var merged bytes.Buffer
	st, err := archive.IndexFiles(ctx, files, &merged)
	if err != nil {
		t.Fatal(err)
	}
	if got := warccheck.SortedLines(all); fmt.Sprint(got) != fmt.Sprint(warccheck.SortedLines(merged.Bytes())) || int(st.Lines) != len(got) {
		t.Errorf("IndexFiles of all files (%+v) is not the merge of the per-file indexes", st)
	}
	want, err := warccheck.CDXJ(warccheck.Warcio(t), files)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range warccheck.CompareCDXJ(warccheck.SortedLines(merged.Bytes()), want) {
		t.Error(e)
	}
	t.Logf("%d files, %d lines agree with warcio", len(files), len(want))
}
