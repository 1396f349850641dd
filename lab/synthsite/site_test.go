package synthsite

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
)

func TestPageShape(t *testing.T) {
	s, err := New(1000, 42)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.N {
		links := s.LinksOf(i)
		if len(links) != Links {
			t.Fatalf("page %d: %d links", i, len(links))
		}
		for k, l := range links {
			if l < 0 || l >= s.N {
				t.Fatalf("page %d links to %d", i, l)
			}
			if k < 2 && 2*i+1+k < s.N && l != 2*i+1+k {
				t.Fatalf("page %d: link %d is %d, want child %d", i, k, l, 2*i+1+k)
			}
		}
		if n := len(strings.Fields(s.Text(i))); n != Words {
			t.Fatalf("page %d: %d words", i, n)
		}
	}
	if s.NearCopies() != 100 || s.Originals() != 900 {
		t.Errorf("near-copies %d originals %d", s.NearCopies(), s.Originals())
	}
	if _, err := New(0, 1); err == nil {
		t.Error("New(0) did not fail")
	}
}

// TestDeterministic: the same seed serves the same bytes; another seed
// other bytes.
func TestDeterministic(t *testing.T) {
	a, b, c := Site{N: 50, Seed: 1}, Site{N: 50, Seed: 1}, Site{N: 50, Seed: 2}
	var x, y, z bytes.Buffer
	a.WritePage(&x, 17)
	b.WritePage(&y, 17)
	c.WritePage(&z, 17)
	if x.String() != y.String() || x.String() == z.String() {
		t.Error("pages are not a function of (seed, page)")
	}
}

func TestPageIndex(t *testing.T) {
	s := Site{N: 100}
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"/p/0", 0, true}, {"/p/99", 99, true}, {"http://127.0.0.1:8080/p/17", 17, true},
		{"/p/100", 0, false}, {"/p/-1", 0, false}, {"/p/07", 0, false}, {"/p/", 0, false},
		{"/q/1", 0, false}, {"http://127.0.0.1:8080/p/1?x=1", 0, false}, {"/p/1x", 0, false},
	} {
		got, ok := s.PageIndex(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("PageIndex(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestNearCopiesAreTheTruth checks the ground truth with the real content
// dedup: every near-copy is judged a duplicate of the page it copies, and
// no original is a duplicate of anything.
func TestNearCopiesAreTheTruth(t *testing.T) {
	s := Site{N: 2000, Seed: 3}
	d, err := contentdedup.New(contentdedup.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]uint64, s.N)
	for i := range s.N {
		v := d.Check(Path(i), s.Title(i), s.Text(i))
		ids[i] = v.DocID
		orig, isCopy := NearCopyOf(i)
		switch {
		case isCopy && (!v.Duplicate || v.DocID != ids[orig]):
			t.Fatalf("near-copy %d: %+v, want a duplicate of %d", i, v, orig)
		case !isCopy && v.Duplicate:
			t.Fatalf("original %d judged %s duplicate of %s", i, v.Reason, v.MatchURL)
		}
	}
}

func TestServe(t *testing.T) {
	s := Site{N: 20, Seed: 9}
	srv := httptest.NewServer(s)
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := get("/p/19")
	if code != 200 || !strings.Contains(body, "<title>"+s.Title(19)+"</title>") || strings.Count(body, "<a href=") != Links {
		t.Errorf("/p/19: %d %q", code, body)
	}
	if code, _ := get("/p/20"); code != 404 {
		t.Errorf("/p/20: %d", code)
	}
	if code, body := get("/robots.txt"); code != 200 || !strings.Contains(body, "Allow: /") {
		t.Errorf("/robots.txt: %d %q", code, body)
	}
}

// TestDistances: every page is reachable, the seed is at 0, its tree
// children at 1, and no link shortens a distance by more than one.
func TestDistances(t *testing.T) {
	s, err := New(5000, 3)
	if err != nil {
		t.Fatal(err)
	}
	d := s.Distances()
	if d[0] != 0 || d[1] != 1 || d[2] != 1 {
		t.Fatalf("distances of pages 0, 1, 2: %d %d %d; want 0 1 1", d[0], d[1], d[2])
	}
	for i := range s.N {
		if d[i] <= 0 && i != 0 {
			t.Fatalf("page %d at distance %d", i, d[i])
		}
		for _, l := range s.LinksOf(i) {
			if d[l] > d[i]+1 {
				t.Fatalf("page %d (distance %d) links to %d at distance %d", i, d[i], l, d[l])
			}
		}
	}
}
