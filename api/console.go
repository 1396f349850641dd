package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// consoleCookie is the cookie in which a browser keeps the bearer token
// for the web console (HttpOnly, SameSite=Strict: a page on another site
// cannot make the browser send it).
const consoleCookie = "bloomcrawl_token"

// mountConsole serves HandlerOptions.Console at "/" and under
// "/console/".
func (h *handler) mountConsole() {
	if h.o.Console == nil {
		return
	}
	h.mux.Handle("GET /{$}", h.metrics.instrument("/", h.o.Console))
	h.mux.Handle("/console/", h.metrics.instrument("/console/", h.o.Console))
}

// isConsolePath reports whether p is one of the console's paths.
func isConsolePath(p string) bool { return p == "/" || strings.HasPrefix(p, "/console/") }

// consoleLogin answers a console GET that carries the token as ?token=T
// (a browser cannot send an Authorization header when following a link):
// with the right token, it sets the token cookie and redirects to the same
// URL without the token (so it leaves the address bar and the history);
// with a wrong one, 401. It reports whether it answered.
func (h *handler) consoleLogin(w http.ResponseWriter, r *http.Request) bool {
	if h.o.Console == nil || h.o.Token == "" || r.Method != http.MethodGet || !isConsolePath(r.URL.Path) || !r.URL.Query().Has("token") {
		return false
	}
	q := r.URL.Query()
	got := sha256.Sum256([]byte(q.Get("token")))
	if subtle.ConstantTimeCompare(got[:], h.token[:]) != 1 {
		h.metrics.unauthorized.Inc()
		writeError(w, http.StatusUnauthorized, "wrong token in ?token=")
		return true
	}
	http.SetCookie(w, &http.Cookie{Name: consoleCookie, Value: q.Get("token"), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	q.Del("token")
	u := *r.URL
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
	return true
}

// cookieAuthorized reports whether r carries the token in the console's
// cookie (accepted on the console's paths only: the API's clients send
// the Authorization header).
func (h *handler) cookieAuthorized(r *http.Request) bool {
	if h.o.Console == nil || !isConsolePath(r.URL.Path) {
		return false
	}
	c, err := r.Cookie(consoleCookie)
	if err != nil {
		return false
	}
	got := sha256.Sum256([]byte(c.Value))
	return subtle.ConstantTimeCompare(got[:], h.token[:]) == 1
}
