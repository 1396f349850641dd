package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/similar"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// similarTexts are the documents of the similar-pages tests: two real
// articles, a near-copy of the first (a duplicate: same docId), pieces of
// the first (related pages with other docIds) and an unrelated English
// text.
func similarTexts() map[string]string {
	return map[string]string{
		"/a":       zhA,
		"/a-copy":  zhB,
		"/c":       zhC,
		"/a-half":  cut(zhA, 0.5),
		"/a-most":  cut(zhA, 0.7),
		"/a-third": cut(zhA, 0.33) + cut(zhC, 0.33),
		"/en":      "The release fixes a crash in the parser and speeds up the indexer for large repositories.",
	}
}

// cut returns the paragraphs of s up to about frac of its length.
func cut(s string, frac float64) string {
	i := strings.LastIndexByte(s[:int(float64(len(s))*frac)], '\n')
	return s[:i+1]
}

// wantSimilar is what an in-memory MinHash index (contentdedup, the same
// default p and q) answers for docId q among the stored pages.
func wantSimilar(t *testing.T, db *storage.DB, q storage.DocID, limit int) []similar.Neighbor {
	t.Helper()
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx := similar.NewIndex(similar.NewPages())
	var qs similar.Entry
	err = db.ForEachFingerprint(context.Background(), func(f storage.Fingerprint) error {
		p, err := db.Page(f.DocID)
		if err != nil {
			return err
		}
		s := d.Similarity(p.Text)
		if f.DocID == q {
			qs = s
		}
		if !s.IsZero() {
			idx.Add(uint64(f.DocID), s.Sig[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := idx.Similar(qs.Sig[:], 0)
	ns = slices.DeleteFunc(ns, func(n similar.Neighbor) bool { return n.DocID == uint64(q) })
	return ns[:min(len(ns), limit)]
}

func sameNeighbours(got []storage.SimilarPage, want []similar.Neighbor) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if uint64(got[i].DocID) != want[i].DocID || got[i].Bands != want[i].Bands || got[i].Jaccard != want[i].Jaccard {
			return false
		}
	}
	return true
}

// TestSimilarPages: the docId service indexes each new document's MinHash
// bands in the store; GET /v1/pages/{docId}/similar answers as an
// in-memory index over the same pages would, never lists the document
// itself (its near-copy shares its docId and is no page of its own), and
// refuses a bad limit.
func TestSimilarPages(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	ids := map[string]string{}
	for _, path := range []string{"/a", "/a-copy", "/c", "/a-half", "/a-most", "/a-third", "/en"} {
		r := e.submit(doc("http://news.example"+path, "", similarTexts()[path]))
		ids[path] = r.DocID
	}
	if ids["/a-copy"] != ids["/a"] {
		t.Fatalf("the near-copy got docId %s, the article %s: the test needs it to be a duplicate", ids["/a-copy"], ids["/a"])
	}
	for _, path := range []string{"/a", "/c", "/a-half", "/a-most", "/a-third", "/en"} {
		var ans api.SimilarAnswer
		e.call("GET", "/v1/pages/"+ids[path]+"/similar?limit=3", "", http.StatusOK, &ans)
		for _, s := range ans.Similar {
			if s.DocID.String() == ids[path] {
				t.Errorf("%s lists itself (or a page with its docId) as similar", path)
			}
		}
		want := wantSimilar(t, e.db, storage.DocID(mustParse(t, ids[path])), 3)
		if !sameNeighbours(ans.Similar, want) {
			t.Errorf("%s: store answers %+v, in-memory index %+v", path, ans.Similar, want)
		}
		if path == "/a" && (len(ans.Similar) == 0 || ans.Similar[0].DocID.String() != ids["/a-most"]) {
			// 70% of the article: word-set Jaccard 0.72, a page of its
			// own (not a near-duplicate), sharing 2 of the 6 bands.
			t.Errorf("/a: similar %+v, want the page with 70%% of its text (%s) first", ans.Similar, ids["/a-most"])
		}
	}
	var bad api.ErrorAnswer
	e.call("GET", "/v1/pages/"+ids["/a"]+"/similar?limit=0", "", http.StatusBadRequest, &bad)
	e.call("GET", "/v1/pages/00000000000004d2/similar", "", http.StatusNotFound, &bad)
	e.call("GET", "/v1/pages/1234/similar", "", http.StatusBadRequest, &bad)
}

func mustParse(t *testing.T, s string) storage.DocID {
	t.Helper()
	id, err := storage.ParseDocID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSimilarIndexRebuilt: pages stored without MinHash entries (a store
// written before the index existed) get them when the service starts, and
// then answer as the in-memory index does.
func TestSimilarIndexRebuilt(t *testing.T) {
	dir := t.TempDir()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, text := range similarTexts() {
		n++
		p := &storage.Page{DocID: storage.DocID(n), URL: "http://news.example" + path, FetchedAt: time.Unix(1, 0), Text: text}
		if _, err := db.Commit(context.Background(), storage.Commit{Page: p}); err != nil {
			t.Fatal(err)
		}
	}
	if missing, _ := db.MinHashMissing(context.Background()); len(missing) != n {
		t.Fatalf("%d pages without entries before the rebuild, want %d", len(missing), n)
	}
	db.Close()
	e := openEnv(t, dir, api.HandlerOptions{})
	if missing, err := e.db.MinHashMissing(context.Background()); len(missing) != 0 || err != nil {
		t.Fatalf("after start-up %v pages lack entries (%v)", missing, err)
	}
	for id := 1; id <= n; id++ {
		var ans api.SimilarAnswer
		e.call("GET", fmt.Sprintf("/v1/pages/%s/similar", storage.DocID(id)), "", http.StatusOK, &ans)
		if want := wantSimilar(t, e.db, storage.DocID(id), 10); !sameNeighbours(ans.Similar, want) {
			t.Errorf("doc %d: store answers %+v, in-memory index %+v", id, ans.Similar, want)
		}
	}
}
