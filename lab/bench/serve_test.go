package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestLoadCounts: every index runs exactly once whatever the client count,
// and each failing call is counted.
func TestLoadCounts(t *testing.T) {
	tests := []struct{ clients, n, failEvery, wantErrs int }{
		{1, 10, 0, 0},
		{4, 100, 7, 15}, // 0, 7, ..., 98
		{16, 5, 1, 5},   // more clients than calls, all fail
	}
	for _, tc := range tests {
		calls := make([]atomic.Int32, tc.n)
		r, err := load(context.Background(), tc.clients, tc.n, func(i int) error {
			calls[i].Add(1)
			if tc.failEvery > 0 && i%tc.failEvery == 0 {
				return errors.New("failed " + fmt.Sprint(i))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("%+v: index %d ran %d times", tc, i, c)
			}
		}
		if r.Requests != tc.n || r.Errors != tc.wantErrs || (tc.wantErrs > 0) != strings.HasPrefix(r.FirstErr, "failed ") {
			t.Errorf("%+v: requests %d errors %d first %q", tc, r.Requests, r.Errors, r.FirstErr)
		}
		if r.P50 > r.P90 || r.P90 > r.P99 || r.P99 > r.Max {
			t.Errorf("%+v: percentiles out of order %+v", tc, r)
		}
	}
}

// TestServe: against a real store behind the HTTP API, every POST answer is
// counted as new or duplicate, the in-process run agrees with HTTP, and the
// store holds exactly the documents counted new.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	writeCorpus(t, dir, 4, 12, 40)
	pages, err := LoadCorpus(context.Background(), []string{dir}, CorpusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	const requests = 24
	rep, err := Serve(context.Background(), ServeOptions{Pages: pages, Clients: 3, Requests: requests, Size: 600, DupEvery: 4, Direct: true, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 5 || rep.Clients != 3 {
		t.Fatalf("%d results: %+v", len(rep.Results), rep)
	}
	newDocs := 0
	for i, r := range rep.Results {
		if r.Requests != requests || r.Errors != 0 {
			t.Errorf("%s: %d requests, %d errors (%s)", r.Name, r.Requests, r.Errors, r.FirstErr)
		}
		if i == 4 {
			break // GET
		}
		if r.New+r.Duplicates != requests || r.Duplicates < 1 {
			t.Errorf("%s: %d new + %d duplicates, want %d with some duplicates", r.Name, r.New, r.Duplicates, requests)
		}
		if i%2 == 1 && r.New != rep.Results[i-1].New {
			t.Errorf("%s: %d new, HTTP said %d", r.Name, r.New, rep.Results[i-1].New)
		}
		if i%2 == 0 {
			newDocs += r.New
		}
	}
	if want := fmt.Sprintf("random among %d stored pages", newDocs); rep.Results[4].Note != want {
		t.Errorf("GET note %q, want %q", rep.Results[4].Note, want)
	}
	db, err := storage.Open(store, &storage.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != newDocs {
		t.Errorf("store holds %d pages, answers counted %d new", st.Pages, newDocs)
	}
}

func TestChunkText(t *testing.T) {
	line := strings.Repeat("汉字和English混合的一行文字。", 20) + "\n" // ~760 bytes
	text := strings.Repeat(line, 20)                        // ~15 KB
	chunks := chunkText(text, 2000)
	total := 0
	for i, c := range chunks {
		if len(c) > 2000 || !utf8.ValidString(c) {
			t.Errorf("chunk %d: %d bytes, valid UTF-8 %v", i, len(c), utf8.ValidString(c))
		}
		total += len(c)
	}
	if total < len(text)-2000 {
		t.Errorf("chunks hold %d of %d bytes", total, len(text))
	}
	// One line longer than the size is cut at rune boundaries.
	for _, c := range chunkText(strings.Repeat("长", 3000), 1000) {
		if len(c) > 1000 || !utf8.ValidString(c) {
			t.Errorf("cut of a long line: %d bytes, valid %v", len(c), utf8.ValidString(c))
		}
	}
}
