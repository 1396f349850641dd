package crawler

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/configs"
)

// TestLoginSite: a site whose every request needs a header (a host rule)
// and basic auth (the password from an environment variable), and whose
// members' pages need the session cookie its login page sets. The pages
// behind them are crawled; a redirect to another loopback host carries
// none of the credentials; the password appears in no log, store file,
// --json output or WARC record, and the session cookie in no WARC request
// record; a resumed crawl keeps the session (the cookie jar is saved in
// the store) while the login page no longer gives one.
func TestLoginSite(t *testing.T) {
	const (
		password = "b4sic-secret"
		session  = "sess-7f3a9c-secret"
	)
	t.Setenv("BLOOMCRAWL_TEST_PASSWORD", password)
	authValue := "Basic " + base64.StdEncoding.EncodeToString([]byte("bob:"+password))

	var mu sync.Mutex
	var leaked []string // credentials the other host received
	other := serveLoopHost(t, "127.0.0.2", 560, func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		for _, h := range []string{"Authorization", "X-Team", "Cookie"} {
			if v := r.Header.Get(h); v != "" {
				leaked = append(leaked, h+": "+v)
			}
		}
		mu.Unlock()
		return false
	})
	var loginOpen atomic.Bool
	loginOpen.Store(true)
	var refused atomic.Int64 // requests refused for a missing credential
	site := serveLoopHost(t, "127.0.0.1", 550, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("X-Team") != "crawl" || r.Header.Get("Authorization") != authValue {
			refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Basic realm="members"`)
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return true
		}
		switch p := r.URL.Path; {
		case p == "/":
			fmt.Fprint(w, pageOf("home", 551, a("/login"), a("/away")))
		case p == "/login":
			if !loginOpen.Load() {
				http.Error(w, "login closed", http.StatusGone)
				return true
			}
			http.SetCookie(w, &http.Cookie{Name: "session", Value: session, Path: "/", HttpOnly: true})
			fmt.Fprint(w, pageOf("welcome", 552, a("/members/a"), a("/members/b"), a("/members/c")))
		case strings.HasPrefix(p, "/members/"):
			if c, err := r.Cookie("session"); err != nil || c.Value != session {
				refused.Add(1)
				http.Error(w, "log in first", http.StatusForbidden)
				return true
			}
			fmt.Fprint(w, pageOf("members "+p, 553+pathVocab(p)))
		case p == "/away":
			return redirect(w, r, other.url("/landing"))
		default:
			return false
		}
		return true
	})
	cfg := accessConfig(site.url("/"), "127.0.0.1", "127.0.0.2")
	cfg.Fetch.Headers = []string{"X-Crawl-Run: test"}
	cfg.Fetch.HostRules = []configs.HostRule{{Match: "127.0.0.1", Headers: []string{"X-Team: crawl"},
		BasicAuth: configs.BasicAuth{User: "bob", PasswordEnv: "BLOOMCRAWL_TEST_PASSWORD"}}}
	warcDir := t.TempDir()
	r := accessCrawl(t, cfg, "", warcDir, nil)
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, p := range []string{"/", "/login", "/members/a", "/members/b", "/members/c"} {
		if rec := r.recs[site.url(p)]; rec.DocID == 0 {
			t.Errorf("%s not stored: %+v", p, rec)
		}
	}
	if rec := r.recs[other.url("/landing")]; rec.DocID == 0 {
		t.Errorf("the redirect's target not stored: %+v", rec)
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("the site refused %d requests for a missing credential", n)
	}
	mu.Lock()
	if len(leaked) > 0 || other.total() == 0 {
		t.Errorf("the other host (%d requests) received credentials: %v", other.total(), leaked)
	}
	mu.Unlock()

	secrets := []string{password, strings.TrimPrefix(authValue, "Basic ")}
	js, _ := json.Marshal(r.stats)
	for _, s := range append(secrets, session) {
		if strings.Contains(r.log, s) {
			t.Errorf("the log holds %q", s)
		}
		if strings.Contains(string(js), s) {
			t.Errorf("the --json stats hold %q", s)
		}
	}
	for _, s := range secrets {
		if files := grepDir(t, r.dir, s); len(files) > 0 {
			t.Errorf("store files hold %q: %v", s, files)
		}
	}
	for u, rec := range r.recs {
		if b, _ := json.Marshal(rec); strings.Contains(string(b), session) {
			t.Errorf("the record of %s holds the session cookie", u)
		}
	}
	warc := readWARCs(t, warcDir)
	for _, s := range secrets {
		if strings.Contains(warc, s) {
			t.Errorf("the WARC files hold %q", s)
		}
	}
	requests, redactedAuth, redactedCookie := 0, 0, 0
	for _, rec := range strings.Split(warc, "WARC/1.1\r\n") {
		if !strings.Contains(rec, "WARC-Type: request\r\n") {
			continue
		}
		requests++
		if strings.Contains(rec, session) {
			t.Errorf("a WARC request record holds the session cookie:\n%s", rec)
		}
		if strings.Contains(rec, "Authorization: [redacted]") {
			redactedAuth++
		}
		if strings.Contains(rec, "Cookie: [redacted]") {
			redactedCookie++
		}
		if strings.Contains(rec, "X-Team: crawl") != strings.Contains(rec, "WARC-Target-URI: "+site.url("/")) {
			t.Errorf("X-Team in a WARC request record to the wrong host (or missing):\n%s", rec)
		}
	}
	t.Logf("%d WARC request records: %d with Authorization redacted, %d with Cookie redacted", requests, redactedAuth, redactedCookie)
	if redactedAuth == 0 || redactedCookie < 3 {
		t.Errorf("want Authorization and Cookie recorded as [redacted] (%d, %d)", redactedAuth, redactedCookie)
	}

	// Resume: the login page gives no session any more; the saved jar
	// still has it.
	loginOpen.Store(false)
	cfg2 := accessConfig(site.url("/members/late"), "127.0.0.1", "127.0.0.2")
	cfg2.Fetch.HostRules = cfg.Fetch.HostRules
	r2 := accessCrawl(t, cfg2, r.dir, "", nil)
	if r2.err != nil {
		t.Fatal(r2.err)
	}
	if rec := r2.recs[site.url("/members/late")]; rec.DocID == 0 {
		t.Errorf("resumed crawl: /members/late not stored (the session was lost): %+v", rec)
	}
	if !strings.Contains(r2.log, "cookie jar restored from the store") {
		t.Error("resumed crawl: no cookie jar restored")
	}
}
