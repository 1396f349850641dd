package urlfilter

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"

	"golang.org/x/net/idna"
)

// ErrScheme is wrapped by Canonicalize for a URL whose scheme is not http or
// https (mailto:, javascript:, ftp:, …).
var ErrScheme = errors.New("urlfilter: not an http(s) URL")

// DefaultStripParams are the query parameters Canonicalize removes by
// default: analytics tracking tags and session ids. A trailing "*" matches a
// prefix. Names compare case-insensitively.
var DefaultStripParams = []string{
	"utm_*", "gclid", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid", "mc_cid", "mc_eid",
	"_ga", "_gl", "igshid", "spm", "jsessionid", "phpsessid", "aspsessionid*", "sid", "sessionid", "session_id", "cfid", "cftoken",
}

// Canonicalizer turns hrefs into the canonical URLs used as dedup keys. The
// zero value uses DefaultStripParams. It is safe for concurrent use.
type Canonicalizer struct {
	// StripParams are query parameter names to remove ("x*" matches a
	// prefix, case-insensitive). nil means DefaultStripParams; an empty
	// non-nil slice strips nothing.
	StripParams []string
}

var defaultCanonicalizer Canonicalizer

// Canonicalize is (&Canonicalizer{}).Canonicalize: canonicalization with
// DefaultStripParams.
func Canonicalize(base *url.URL, href string) (*url.URL, error) {
	return defaultCanonicalizer.Canonicalize(base, href)
}

// Canonicalize resolves href against base (base may be nil when href is
// absolute) and returns its canonical form:
//
//   - scheme and host lowercased; internationalized hosts in IDNA ASCII
//     (punycode) form; a trailing dot of the host removed;
//   - the default port (:80 for http, :443 for https) and an empty port
//     dropped;
//   - the fragment dropped;
//   - dot segments removed and an empty path made "/";
//   - percent-encoding normalized: unreserved characters (A–Z a–z 0–9 - . _ ~)
//     decoded, every other escape in upper-case hex, characters that must be
//     escaped escaped;
//   - query parameters with names in StripParams removed, the rest sorted by
//     name then value (a query left empty is dropped).
//
// Canonicalizing a canonical URL returns it unchanged. It returns an error
// wrapping ErrScheme for non-HTTP(S) schemes, and an error naming the input
// for unparseable hrefs, a relative href with no base, or a missing or
// invalid host.
func (c *Canonicalizer) Canonicalize(base *url.URL, href string) (*url.URL, error) {
	ref, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return nil, fmt.Errorf("urlfilter: canonicalize %q: %w", href, err)
	}
	u := ref
	if base != nil {
		u = base.ResolveReference(ref)
	} else if !ref.IsAbs() {
		return nil, fmt.Errorf("urlfilter: canonicalize %q: relative URL without a base", href)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("%w: %q has scheme %q", ErrScheme, href, u.Scheme)
	}
	if u.Opaque != "" {
		return nil, fmt.Errorf("urlfilter: canonicalize %q: opaque URL (no //host)", href)
	}
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return nil, fmt.Errorf("urlfilter: canonicalize %q: %w", href, err)
	}
	port := u.Port()
	if port != "" {
		port = strings.TrimLeft(port, "0")
		if port == "" {
			port = "0"
		}
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	hostport := host
	if strings.Contains(host, ":") {
		hostport = "[" + host + "]"
	}
	if port != "" {
		hostport += ":" + port
	}
	path := removeDotSegments(normalizeEscapes(u.EscapedPath(), pathKeep))
	if path == "" || path[0] != '/' {
		path = "/" + path
	}
	query := c.canonicalQuery(u.RawQuery)
	s := scheme + "://"
	if u.User != nil {
		s += u.User.String() + "@"
	}
	s += hostport + path
	if query != "" {
		s += "?" + query
	}
	out, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("urlfilter: canonicalize %q: result %q does not parse: %w", href, s, err)
	}
	return out, nil
}

// canonicalHost lowercases host, converts it to IDNA ASCII form and removes
// a trailing dot. IPv6 literals are returned in their canonical text form.
func canonicalHost(host string) (string, error) {
	if host == "" {
		return "", errors.New("missing host")
	}
	if strings.Contains(host, ":") {
		ip := net.ParseIP(host)
		if ip == nil {
			return "", fmt.Errorf("invalid IPv6 host %q", host)
		}
		return ip.String(), nil
	}
	h := strings.TrimRight(host, ".")
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		h = strings.ToLower(h)
	} else {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("host %q: %w", host, err)
		}
		h = strings.ToLower(strings.TrimRight(a, "."))
	}
	if h == "" {
		return "", fmt.Errorf("empty host %q", host)
	}
	for i := 0; i < len(h); i++ {
		if b := h[i]; b <= ' ' || b >= 0x7f || strings.IndexByte("/?#@[]%\\<>^`{|}\"", b) >= 0 {
			return "", fmt.Errorf("host %q has invalid character %q", host, b)
		}
	}
	return h, nil
}

const (
	// pathKeep: characters that stay literal in a path (RFC 3986 pchar plus
	// "/"); everything else is percent-encoded.
	pathKeep = "-._~!$&'()*+,;=:@/"
	// queryKeep: literal in a query component (name or value); "&" and "="
	// are structure and stay escaped inside a component.
	queryKeep = "-._~!$'()*+,;:@/?"
)

func isUnreserved(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-' || b == '.' || b == '_' || b == '~'
}

func unhex(b byte) (byte, bool) {
	switch {
	case '0' <= b && b <= '9':
		return b - '0', true
	case 'a' <= b && b <= 'f':
		return b - 'a' + 10, true
	case 'A' <= b && b <= 'F':
		return b - 'A' + 10, true
	}
	return 0, false
}

// normalizeEscapes rewrites s so that unreserved characters are literal,
// valid escapes of anything else use upper-case hex, a "%" not starting a
// valid escape becomes "%25", and bytes outside keep (and not unreserved)
// are escaped.
func normalizeEscapes(s, keep string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 < len(s) {
				hi, ok1 := unhex(s[i+1])
				lo, ok2 := unhex(s[i+2])
				if ok1 && ok2 {
					v := hi<<4 | lo
					if isUnreserved(v) {
						b.WriteByte(v)
					} else {
						b.WriteByte('%')
						b.WriteByte(hexd[v>>4])
						b.WriteByte(hexd[v&15])
					}
					i += 2
					continue
				}
			}
			b.WriteString("%25")
			continue
		}
		if isUnreserved(c) || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}

// removeDotSegments implements RFC 3986 section 5.2.4 on an escaped path.
// Encoded dots were decoded by normalizeEscapes first, so "%2E%2E" counts.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

type param struct{ name, value string }

// canonicalQuery drops stripped parameters, normalizes escapes and sorts
// the rest. It keeps the raw (escaped) form of names and values so that
// "a+b" and "a%20b" are not merged ('+' means space only in form encoding).
func (c *Canonicalizer) canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	strip := c.StripParams
	if strip == nil {
		strip = DefaultStripParams
	}
	var ps []param
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		name, value, hasEq := strings.Cut(part, "=")
		name = normalizeEscapes(name, queryKeep)
		if stripped(name, strip) {
			continue
		}
		if hasEq {
			value = "=" + normalizeEscapes(value, queryKeep+"=")
		}
		ps = append(ps, param{name, value})
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].name != ps[j].name {
			return ps[i].name < ps[j].name
		}
		return ps[i].value < ps[j].value
	})
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.name)
		b.WriteString(p.value)
	}
	return b.String()
}

func stripped(name string, strip []string) bool {
	n := name
	if un, err := url.QueryUnescape(name); err == nil {
		n = un
	}
	n = strings.ToLower(n)
	for _, s := range strip {
		s = strings.ToLower(s)
		if p, ok := strings.CutSuffix(s, "*"); ok {
			if strings.HasPrefix(n, p) {
				return true
			}
		} else if n == s {
			return true
		}
	}
	return false
}
