package crawler

import (
	"context"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
)

// TestResumeKeepsDuplicateSignature crawls a page A and a near-duplicate B
// of it, then resumes on the same store with a seed C that is close to B
// but not to A (C joins A only through B's content signature, which the
// deduper indexes under A's docId). The resumed crawl must record C as a
// duplicate of A, as one uninterrupted crawl would.
func TestResumeKeepsDuplicateSignature(t *testing.T) {
	raw, err := os.ReadFile("../contentdedup/testdata/en_functions.txt")
	if err != nil {
		t.Fatal(err)
	}
	a := strings.Join(strings.Fields(string(raw)), " ")
	ref := newDeduper(t)
	accepts := func(x, y contentdedup.Signature) bool {
		j, _ := contentdedup.SketchJaccard(&x.Sketch, &y.Sketch)
		d := contentdedup.Hamming(x.Content, y.Content)
		return d <= contentdedup.DefaultThreshold || (d <= contentdedup.DefaultSketchDistance && j >= contentdedup.DefaultSketchJaccard)
	}
	r := rand.New(rand.NewPCG(8, 1))
	edit := func(text string, pct int) string {
		ws := strings.Fields(text)
		for _, j := range r.Perm(len(ws))[:len(ws)*pct/100] {
			ws[j] = fmt.Sprintf("zz%d", r.IntN(1e6))
		}
		return strings.Join(ws, " ")
	}
	sa := ref.Sign("", a)
	var b, c string
	for range 3000 {
		bt := edit(a, 3)
		sb := ref.Sign("", bt)
		if !accepts(sb, sa) {
			continue
		}
		ct := edit(bt, 2)
		sc := ref.Sign("", ct)
		if j, _ := contentdedup.SketchJaccard(&sc.Sketch, &sa.Sketch); accepts(sc, sb) && !accepts(sc, sa) && j >= 0.72 {
			b, c = bt, ct
			break
		}
	}
	if b == "" {
		t.Fatal("no chain A → B → C (C close to B only) found")
	}
	page := func(text, link string) string {
		return "<!doctype html><html><head><title></title></head><body><p>" + html.EscapeString(text) + "</p>" + link + "</body></html>"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page(a, `<a href="/b">b</a>`))
	})
	mux.HandleFunc("/b", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page(b, ""))
	})
	mux.HandleFunc("/c", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page(c, ""))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	cfg := siteConfig(srv.URL)
	cfg.Seeds = []string{srv.URL + "/a"}
	r1 := crawlInto(t, context.Background(), cfg, dir, nil, nil)
	if r1.err != nil {
		t.Fatal(r1.err)
	}
	ra, rb := r1.urls["/a"], r1.urls["/b"]
	if ra.DocID == 0 || ra.Duplicate || !rb.Duplicate || rb.DocID != ra.DocID || rb.Reason != string(contentdedup.ReasonContent) {
		t.Fatalf("first crawl: /a %+v, /b %+v: want /b a content duplicate of /a", ra, rb)
	}
	if !rb.HasSignature() || len(rb.Sketch) != contentdedup.SketchBytes || ra.HasSignature() {
		t.Fatalf("/b's record carries no signature (or /a's does): /a %+v, /b %+v", ra, rb)
	}

	cfg = siteConfig(srv.URL)
	cfg.Seeds = []string{srv.URL + "/c"}
	r2 := crawlInto(t, context.Background(), cfg, dir, nil, nil)
	if r2.err != nil {
		t.Fatal(r2.err)
	}
	if rc := r2.urls["/c"]; !rc.Duplicate || rc.DocID != ra.DocID || rc.Reason != string(contentdedup.ReasonContent) {
		t.Errorf("resumed crawl: /c %+v, want a content duplicate of /a (docId %016x) through /b's signature", rc, ra.DocID)
	}
}
