// Package cookiefile reads cookies in the Netscape cookies.txt format
// (the format of curl's --cookie-jar, wget's --load-cookies and the
// browser extensions that export cookies): one cookie a line, seven
// tab-separated fields
//
//	domain  include-subdomains  path  secure  expires  name  value
//
// "#" starts a comment, except the "#HttpOnly_" prefix of a domain; blank
// lines are skipped.
package cookiefile

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Cookie is one line of a cookies file: the cookie (Domain without its
// leading dot, Expires zero for a session cookie) and whether it is sent
// to the domain's subdomains too.
type Cookie struct {
	http.Cookie
	Subdomains bool
	Line       int
}

// Read parses a cookies file from r. name is used in errors, which have
// the form "name:LINE: problem". A cookie whose expiry has passed is
// kept (the jar drops it).
func Read(name string, r io.Reader) ([]Cookie, error) {
	var out []Cookie
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		httpOnly := false
		if rest, ok := strings.CutPrefix(line, "#HttpOnly_"); ok {
			line, httpOnly = rest, true
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("%s:%d: want 7 tab-separated fields (domain, subdomains, path, secure, expires, name, value), got %d", name, n, len(f))
		}
		domain := strings.TrimPrefix(f[0], ".")
		if domain == "" || strings.ContainsAny(domain, " /:") {
			return nil, fmt.Errorf("%s:%d: bad domain %q", name, n, f[0])
		}
		sub, err := flag(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: include-subdomains: %v", name, n, err)
		}
		secure, err := flag(f[3])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: secure: %v", name, n, err)
		}
		exp, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil || exp < 0 {
			return nil, fmt.Errorf("%s:%d: expires %q is not a Unix time (0 for a session cookie)", name, n, f[4])
		}
		if f[5] == "" {
			return nil, fmt.Errorf("%s:%d: empty cookie name", name, n)
		}
		path := f[2]
		if !strings.HasPrefix(path, "/") {
			return nil, fmt.Errorf("%s:%d: path %q does not start with /", name, n, path)
		}
		c := Cookie{Cookie: http.Cookie{Name: f[5], Value: f[6], Domain: domain, Path: path, Secure: secure, HttpOnly: httpOnly},
			Subdomains: sub || strings.HasPrefix(f[0], "."), Line: n}
		if exp > 0 {
			c.Expires = time.Unix(exp, 0)
		}
		if err := c.Valid(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Load reads the cookies file at path (Read).
func Load(path string) ([]Cookie, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(path, f)
}

func flag(s string) (bool, error) {
	switch strings.ToUpper(s) {
	case "TRUE":
		return true, nil
	case "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("%q is neither TRUE nor FALSE", s)
}
