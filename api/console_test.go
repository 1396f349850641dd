package api

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestConsoleToken: with a token, the console is reached by opening it
// once with ?token= (a cookie then carries it); a wrong token, no token,
// or the cookie on an API route are refused.
func TestConsoleToken(t *testing.T) {
	db, err := storage.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	console := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("console " + r.URL.RequestURI())) })
	srv := httptest.NewServer(NewHandler(nil, db, HandlerOptions{Token: "s3cret", Console: console}))
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := cl.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/console/hosts"); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code, _ := get("/console/hosts?token=wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", code)
	}
	code, body := get("/console/hosts?sort=fetched&token=s3cret")
	if code != http.StatusOK || body != "console /console/hosts?sort=fetched" {
		t.Errorf("?token=: %d %q (want the page, token dropped from the URL)", code, body)
	}
	if code, body := get("/"); code != http.StatusOK || body != "console /" {
		t.Errorf("with the cookie: %d %q", code, body)
	}
	if code, _ := get("/v1/stats"); code != http.StatusUnauthorized {
		t.Errorf("the cookie opened an API route: %d", code)
	}
}
