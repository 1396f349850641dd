package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/lab/warccheck"
)

// TestQueryExportWARC exports queryStore's 25 pages and one duplicate and
// reads the file back with gowarc's reader and with warcio.
func TestQueryExportWARC(t *testing.T) {
	dir := queryStore(t)
	file := filepath.Join(t.TempDir(), "store.warc.gz")
	out, errOut, code := runQ(t, "--store", dir, "export", "--warc", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "25 pages (resource records), 1 duplicate URLs and 0 other URLs"; !strings.Contains(out, want) {
		t.Errorf("output %q lacks %q", out, want)
	}
	recs, err := warccheck.Read([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range warccheck.Check(recs) {
		t.Error(e)
	}
	resources := map[string]*warccheck.Record{}
	var dup *warccheck.Record
	for i, r := range recs {
		switch {
		case i == 0 && r.Type != "warcinfo":
			t.Errorf("first record is a %s", r.Type)
		case r.Type == "resource":
			resources[r.URI] = r
			if next := recs[i+1]; next.Type != "metadata" || next.Header.Get("WARC-Refers-To") != r.ID {
				t.Errorf("resource %s not followed by its metadata", r.URI)
			}
		case r.Type == "metadata" && r.Fields["bloomcrawl-duplicate-reason"] != "":
			dup = r
		}
	}
	if len(resources) != 25 {
		t.Fatalf("%d resource records, want 25", len(resources))
	}
	p3 := resources["https://a.test/p/03"]
	if p3 == nil || string(p3.Block) != "<html><title>Page 3</title></html>" || p3.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("page 3: %+v", p3)
	}
	want := map[string]string{"bloomcrawl-docid": "f000000000000003", "bloomcrawl-duplicate-reason": "content", "bloomcrawl-duplicate-distance": "1",
		"bloomcrawl-original-record-id": p3.ID, "bloomcrawl-original-uri": "https://a.test/p/03"}
	if dup == nil || dup.URI != "https://a.test/copy-of-3" {
		t.Fatalf("duplicate metadata %+v", dup)
	}
	for k, v := range want {
		if dup.Fields[k] != v {
			t.Errorf("duplicate metadata %s = %q, want %q", k, dup.Fields[k], v)
		}
	}
	t.Run("warcio", func(t *testing.T) {
		for _, e := range warccheck.CheckWithWarcio(warccheck.Warcio(t), []string{file}, recs) {
			t.Error(e)
		}
	})

	// An existing file is not overwritten.
	before, _ := os.ReadFile(file)
	if _, errOut, code := runQ(t, "--store", dir, "export", "--warc", file); code == 0 || !strings.Contains(errOut, "exists") {
		t.Errorf("export over an existing file: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(file); fmt.Sprint(len(after)) != fmt.Sprint(len(before)) {
		t.Errorf("existing file changed")
	}
}
