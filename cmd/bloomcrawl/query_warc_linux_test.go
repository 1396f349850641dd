//go:build linux

package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/internal/warccheck"
)

// warcCrawl crawls a treeSite of n pages with --warc and returns the store
// and WARC directories.
func warcCrawl(t *testing.T, n int, extra ...string) (store, warcDir string) {
	t.Helper()
	srv := httptest.NewServer(treeSite(n, 100))
	t.Cleanup(srv.Close)
	store, warcDir = filepath.Join(t.TempDir(), "s"), filepath.Join(t.TempDir(), "w")
	var out, errb bytes.Buffer
	args := append([]string{"crawl", "--seed", srv.URL + "/p/0", "--store", store, "--warc", warcDir, "--json"}, extra...)
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("crawl: exit %d\n%s", code, errb.String())
	}
	return store, warcDir
}

// TestQueryExportCDXJ crawls with --warc, then indexes the WARC directory
// with query export --cdxj: the index is the merge of the .cdxj files the
// crawl wrote and agrees with warcio's cdx-index line for line.
func TestQueryExportCDXJ(t *testing.T) {
	_, warcDir := warcCrawl(t, 40)
	files, err := warcFiles(warcDir)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runQ(t, "export", "--cdxj", warcDir)
	if code != 0 {
		t.Fatalf("export --cdxj: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "index lines") {
		t.Errorf("summary %q", errOut)
	}
	var written []byte
	for _, f := range files {
		b, err := os.ReadFile(archive.CDXJName(f))
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, b...)
	}
	got := warccheck.SortedLines([]byte(out))
	if strings.Join(got, "\n")+"\n" != out {
		t.Errorf("export --cdxj output is not sorted")
	}
	if w := warccheck.SortedLines(written); strings.Join(w, "\n") != strings.Join(got, "\n") {
		t.Errorf("export --cdxj gives %d lines, the crawl's .cdxj files %d, and they differ", len(got), len(w))
	}
	if len(got) < 40 {
		t.Errorf("%d lines for a 40-page crawl", len(got))
	}
	want, err := warccheck.CDXJ(warccheck.Warcio(t), files)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range warccheck.CompareCDXJ(got, want) {
		t.Error(e)
	}
	t.Logf("%d files, %d lines agree with warcio", len(files), len(want))
}

// TestQueryExportCDXJOfStoreExport indexes what query export --warc writes
// (resource and metadata records): the index agrees with warcio's.
func TestQueryExportCDXJOfStoreExport(t *testing.T) {
	file := filepath.Join(t.TempDir(), "store.warc.gz")
	if _, errOut, code := runQ(t, "--store", queryStore(t), "export", "--warc", file); code != 0 {
		t.Fatalf("export --warc: exit %d: %s", code, errOut)
	}
	out, errOut, code := runQ(t, "export", "--cdxj", file)
	if code != 0 {
		t.Fatalf("export --cdxj: exit %d: %s", code, errOut)
	}
	want, err := warccheck.CDXJ(warccheck.Warcio(t), []string{file})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range warccheck.CompareCDXJ(warccheck.SortedLines([]byte(out)), want) {
		t.Error(e)
	}
	if len(want) != 25 {
		t.Errorf("%d lines, want one per resource record (25)", len(want))
	}
}
