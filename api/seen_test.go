package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// newSeenEnv starts the API with seen-records over a new store (no docId
// service) on 127.0.0.1.
func newSeenEnv(t *testing.T, o seen.Options) *env {
	t.Helper()
	db, err := storage.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := seen.New(db, &o)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db}
	e.srv = httptest.NewServer(api.NewHandler(nil, db, api.HandlerOptions{Seen: recs}))
	t.Cleanup(e.close)
	return e
}

// TestSeenRoutes: record, test (answers in input order), show, delete.
func TestSeenRoutes(t *testing.T) {
	e := newSeenEnv(t, seen.Options{})
	var add api.SeenAddAnswer
	e.call("POST", "/v1/seen/reader%2F42", `{"ids":["d3","d1","d2"]}`, http.StatusOK, &add)
	if add.Added != 3 || add.Blocks != 1 {
		t.Fatalf("add answered %+v", add)
	}
	var got api.SeenTestAnswer
	e.call("POST", "/v1/seen/reader%2F42:test", `{"ids":["n9","d2","n1","d3","n5","d1"]}`, http.StatusOK, &got)
	if strings.Join(got.Seen, ",") != "d2,d3,d1" || strings.Join(got.New, ",") != "n9,n1,n5" {
		t.Fatalf("test answered seen %q new %q; want d2,d3,d1 and n9,n1,n5 in input order", got.Seen, got.New)
	}
	var other api.SeenTestAnswer
	e.call("POST", "/v1/seen/someone-else:test", `{"ids":["d1"]}`, http.StatusOK, &other)
	if len(other.Seen) != 0 || len(other.New) != 1 {
		t.Fatalf("another key answered %+v", other)
	}
	var rec api.SeenRecordAnswer
	e.call("GET", "/v1/seen/reader%2F42", "", http.StatusOK, &rec)
	if rec.Key != "reader/42" || len(rec.Blocks) != 1 || rec.Blocks[0].Count != 3 || rec.Expires == nil {
		t.Fatalf("show answered %+v", rec)
	}
	var del struct{ Deleted bool }
	e.call("DELETE", "/v1/seen/reader%2F42", "", http.StatusOK, &del)
	if !del.Deleted {
		t.Fatal("delete answered deleted=false")
	}
	e.call("POST", "/v1/seen/reader%2F42:test", `{"ids":["d1"]}`, http.StatusOK, &got)
	if len(got.Seen) != 0 {
		t.Fatalf("deleted key still has seen %q", got.Seen)
	}
}

// TestSeenLimits: too many ids 413, bad key or body 400, every error as
// JSON {"status":"error","error":...}, and nothing recorded.
func TestSeenLimits(t *testing.T) {
	e := newSeenEnv(t, seen.Options{MaxIDs: 3, MaxKey: 10})
	for _, c := range []struct {
		path, body string
		code       int
		want       string
	}{
		{"/v1/seen/k", `{"ids":["a","b","c","d"]}`, 413, "4 ids in one call (limit 3)"},
		{"/v1/seen/k:test", `{"ids":["a","b","c","d"]}`, 413, "limit 3"},
		{"/v1/seen/" + strings.Repeat("x", 11), `{"ids":["a"]}`, 400, "key of 11 bytes"},
		{"/v1/seen/k", `{"ids":[]}`, 400, "no ids"},
		{"/v1/seen/k", `{"ids":["a",""]}`, 400, "ids[1]"},
		{"/v1/seen/k", `{"ids":"a"}`, 400, "request body"},
		{"/v1/seen/k", `{"id":["a"]}`, 400, `unknown field "id"`},
		{"/v1/seen/k", `{"ids":["a"]} {}`, 400, "more than one JSON value"},
	} {
		var ans api.ErrorAnswer
		e.call("POST", c.path, c.body, c.code, &ans)
		if ans.Status != "error" || !strings.Contains(ans.Error, c.want) {
			t.Errorf("POST %s %s: %+v; want an error mentioning %q", c.path, c.body, ans, c.want)
		}
	}
	if v, _, _ := e.db.SeenRecord(t.Context(), "k"); v != nil {
		t.Fatal("a refused request recorded something")
	}
}

func TestSeenWithoutRecords(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	var ans api.ErrorAnswer
	e.call("POST", "/v1/seen/k", `{"ids":["a"]}`, http.StatusServiceUnavailable, &ans)
}
