package configs

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/bloomcrawl/bloomcrawl/internal/cookiefile"
)

// Access to sites behind proxies and logins (fetch.proxy, fetch.headers,
// fetch.cookies, fetch.host_rules): the schema and its checks. Secrets
// (passwords) are never written in the file: a rule names the environment
// variable or the file that holds them, and the check only makes sure it
// is there.

// ProxyRule routes the requests to the hosts that Match (a host glob, see
// MatchHost) through Proxy: a proxy URL (http, https, socks5 or socks5h,
// credentials allowed) or "direct" (no proxy).
type ProxyRule struct {
	Match string `yaml:"match"`
	Proxy string `yaml:"proxy"`
}

// HostRule adds to the requests sent to the hosts that Match (a host glob,
// see MatchHost): Headers ("Name: value", after fetch.headers, replacing a
// header of the same name) and BasicAuth. Every rule that matches applies,
// in order.
type HostRule struct {
	Match     string    `yaml:"match"`
	Headers   []string  `yaml:"headers"`
	BasicAuth BasicAuth `yaml:"basic_auth"`
}

// BasicAuth is HTTP basic authentication: User, and the password read from
// the environment variable PasswordEnv or the file PasswordFile (its first
// line), exactly one of them. The zero value means none.
type BasicAuth struct {
	User         string `yaml:"user"`
	PasswordEnv  string `yaml:"password_env"`
	PasswordFile string `yaml:"password_file"`
}

// IsZero reports whether a is unset.
func (a BasicAuth) IsZero() bool { return a == BasicAuth{} }

// Password reads the password from the environment variable or the file.
// Errors name the variable or the file, never the password.
func (a BasicAuth) Password() (string, error) {
	switch {
	case a.PasswordEnv != "" && a.PasswordFile != "":
		return "", errors.New("set password_env or password_file, not both")
	case a.PasswordEnv != "":
		v, ok := os.LookupEnv(a.PasswordEnv)
		if !ok || v == "" {
			return "", fmt.Errorf("environment variable %s (password_env) is not set", a.PasswordEnv)
		}
		return v, nil
	case a.PasswordFile != "":
		b, err := os.ReadFile(a.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("password_file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		if line = strings.TrimRight(line, "\r"); line == "" {
			return "", fmt.Errorf("password_file %s: its first line is empty", a.PasswordFile)
		}
		return line, nil
	}
	return "", errors.New("needs password_env or password_file (a password is never written in the config)")
}

// MatchHost reports whether host (a request's host[:port]) matches the glob
// pattern (path.Match syntax, case-insensitive: "*.example.com" matches
// every subdomain of example.com but not example.com itself). A pattern
// with a port is matched against host:port, one without against the host
// name alone.
func MatchHost(pattern, host string) bool {
	pattern, host = strings.ToLower(pattern), strings.ToLower(host)
	if !strings.Contains(pattern, ":") {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	ok, _ := path.Match(pattern, host)
	return ok
}

// ParseHeader splits a "Name: value" header line as fetch.headers holds
// them; the name is canonicalized (textproto.CanonicalMIMEHeaderKey).
func ParseHeader(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok:
		return "", "", fmt.Errorf("%q is not \"Name: value\"", h)
	case !httpguts.ValidHeaderFieldName(name):
		return "", "", fmt.Errorf("%q is not a valid header name", name)
	case !httpguts.ValidHeaderFieldValue(value):
		return "", "", fmt.Errorf("the value of %s has characters a header cannot hold", name)
	}
	name = textproto.CanonicalMIMEHeaderKey(name)
	switch name {
	case "Host", "Content-Length", "Transfer-Encoding", "Connection":
		return "", "", fmt.Errorf("%s is set by the HTTP client, not by the config", name)
	case "Cookie":
		return "", "", errors.New("Cookie: give cookies in fetch.cookies or fetch.cookies_file (they go to the cookie jar, sent only to their domain)")
	case "Authorization", "Proxy-Authorization":
		return "", "", fmt.Errorf("%s: a credential is never written in the config; use basic_auth with password_env or password_file, or the proxy URL", name)
	}
	return name, value, nil
}

// ParseSetCookie reads a fetch.cookies entry: a Set-Cookie value that
// names its Domain ("session=abc; Domain=example.com; Path=/").
func ParseSetCookie(s string) (*http.Cookie, error) {
	c, err := http.ParseSetCookie(s)
	if err != nil {
		return nil, fmt.Errorf("not a Set-Cookie value (name=value; Domain=host): %v", err)
	}
	if c.Domain == "" {
		return nil, fmt.Errorf("cookie %s has no Domain= (the host it is sent to)", c.Name)
	}
	return c, nil
}

// CheckProxyURL returns why raw is not a proxy URL fetch.proxy accepts
// (http, https, socks5 or socks5h with a host), or "". "direct" is
// accepted when direct is set (a proxy rule).
func CheckProxyURL(raw string, direct bool) string {
	if direct && raw == "direct" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "is not a valid URL" // the parser's message would echo a password
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		want := "http://, https://, socks5:// or socks5h://"
		if direct {
			want += " URL, or direct"
		}
		return "must be a " + want
	}
	if u.Hostname() == "" {
		return "has no host"
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		return "must be scheme://[user:password@]host:port, without a path"
	}
	return ""
}

// RedactURL returns a proxy URL without its user and password, for
// messages.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(malformed URL)"
	}
	u.User = nil
	return u.String()
}

// checkAccess checks fetch.proxy, fetch.no_proxy, fetch.proxy_rules,
// fetch.headers, fetch.cookies, fetch.cookies_file and fetch.host_rules:
// the credentials they name must be readable now, so that a crawl never
// starts without them.
func (f *Fetch) checkAccess(bad badFunc) {
	if f.Proxy != "" {
		if msg := CheckProxyURL(f.Proxy, false); msg != "" {
			bad("fetch.proxy", "%s %s", RedactURL(f.Proxy), msg)
		}
	}
	for i, h := range f.NoProxy {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/ ") {
			bad(fmt.Sprintf("fetch.no_proxy[%d]", i), "%q must be a host name, a .domain or a host glob", h)
		}
	}
	for i, r := range f.ProxyRules {
		field := fmt.Sprintf("fetch.proxy_rules[%d]", i)
		checkGlob(bad, field+".match", r.Match)
		if msg := CheckProxyURL(r.Proxy, true); msg != "" {
			bad(field+".proxy", "%s %s", RedactURL(r.Proxy), msg)
		}
	}
	checkHeaders(bad, "fetch.headers", f.Headers)
	for i, s := range f.Cookies {
		if _, err := ParseSetCookie(s); err != nil {
			bad(fmt.Sprintf("fetch.cookies[%d]", i), "%v", err)
		}
	}
	if f.CookiesFile != "" {
		if _, err := cookiefile.Load(f.CookiesFile); err != nil {
			bad("fetch.cookies_file", "%v", err)
		}
	}
	for i, r := range f.HostRules {
		field := fmt.Sprintf("fetch.host_rules[%d]", i)
		checkGlob(bad, field+".match", r.Match)
		checkHeaders(bad, field+".headers", r.Headers)
		if a := r.BasicAuth; !a.IsZero() {
			if a.User == "" || strings.Contains(a.User, ":") {
				bad(field+".basic_auth.user", "must be a user name without ':'")
			}
			if _, err := a.Password(); err != nil {
				bad(field+".basic_auth", "%v", err)
			}
		}
	}
}

func checkGlob(bad badFunc, field, pattern string) {
	if strings.TrimSpace(pattern) == "" {
		bad(field, "must not be empty (a host name or glob such as *.example.com)")
		return
	}
	if _, err := path.Match(pattern, ""); err != nil || strings.ContainsAny(pattern, "/ ") {
		bad(field, "%q is not a host glob (such as *.example.com)", pattern)
	}
}

func checkHeaders(bad badFunc, field string, hs []string) {
	for i, h := range hs {
		if _, _, err := ParseHeader(h); err != nil {
			bad(fmt.Sprintf("%s[%d]", field, i), "%v", err)
		}
	}
}
