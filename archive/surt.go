package archive

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

var wwwPrefix = regexp.MustCompile(`^(https?://)www\d*\.`)

// SURT is the sort key of a URL in a CDXJ index, computed as pywb's and
// Node warcio's indexers compute it (warcio's getSurt): URLs that are not
// http(s) are returned as they are; otherwise a leading "www", "www2", ...
// label is dropped, the URL is lower-cased and parsed as a WHATWG URL (IDN
// hosts to punycode, default port dropped, dot segments removed, the path
// and query percent-encoded), and the key is the host's labels reversed and
// joined by ",", the port if any, ")", the path, and the query with its
// "&"-separated arguments sorted; userinfo and fragment are dropped. A URL
// the WHATWG parser rejects is returned after the "www" step, unchanged
// otherwise.
//
// Example: "http://www.Example.com:8080/a/../B?b=2&a=1" → "com,example:8080)/b?a=1&b=2".
func SURT(u string) string {
	if !strings.HasPrefix(u, "https:") && !strings.HasPrefix(u, "http:") {
		return u
	}
	u = wwwPrefix.ReplaceAllString(u, "$1")
	key, err := surtKey(strings.ToLower(u))
	if err != nil {
		return u
	}
	return key
}

func surtKey(u string) (string, error) {
	scheme, rest, _ := strings.Cut(u, ":")
	rest = strings.TrimLeft(rest, "/\\")
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	end := strings.IndexAny(rest, "/\\?")
	if end < 0 {
		end = len(rest)
	}
	authority, rest := rest[:end], rest[end:]
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	host, port := authority, ""
	if strings.HasPrefix(host, "[") {
		i := strings.IndexByte(host, ']')
		if i < 0 {
			return "", fmt.Errorf("bad IPv6 host %q", host)
		}
		host, port = authority[:i+1], strings.TrimPrefix(authority[i+1:], ":")
		if ip := net.ParseIP(host[1 : len(host)-1]); ip == nil {
			return "", fmt.Errorf("bad IPv6 host %q", host)
		} else {
			host = "[" + ip.String() + "]"
		}
	} else if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host, port = host[:i], host[i+1:]
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 0 || n > 65535 || strings.ContainsAny(port, "+-") {
			return "", fmt.Errorf("bad port %q", port)
		}
		port = strconv.Itoa(n)
		if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
			port = ""
		}
	}
	if !strings.HasPrefix(host, "[") {
		h, err := urlUnescape(host)
		if err != nil || h == "" {
			return "", fmt.Errorf("bad host %q", host)
		}
		if h, err = idna.Lookup.ToASCII(h); err != nil {
			return "", err
		}
		if strings.ContainsAny(h, " #%/:<>?@[\\]^|") {
			return "", fmt.Errorf("bad host %q", host)
		}
		host = h
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	var b strings.Builder
	labels := strings.Split(host, ".")
	if strings.HasPrefix(host, "[") {
		labels = []string{host}
	}
	slices.Reverse(labels)
	b.WriteString(strings.Join(labels, ","))
	if port != "" {
		b.WriteString(":" + port)
	}
	b.WriteString(")")
	b.WriteString(whatwgPath(path))
	if hasQuery && query != "" {
		args := strings.Split(percentEncode(query, querySet), "&")
		slices.Sort(args)
		b.WriteString("?" + strings.Join(args, "&"))
	}
	return b.String(), nil
}

// whatwgPath is a special URL's path as the WHATWG URL parser serializes
// it: backslashes as slashes, "." and ".." segments (also percent-encoded)
// resolved, the path percent-encode set encoded, "/" when empty.
func whatwgPath(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	var out []string
	for i, s := range segs {
		last := i == len(segs)-1
		switch strings.ReplaceAll(s, "%2e", ".") {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, percentEncode(s, pathSet))
		}
	}
	return "/" + strings.Join(out, "/")
}

const (
	querySet = " \"#<>'"
	pathSet  = " \"#<>?`{}"
)

// percentEncode encodes C0 controls, DEL, bytes >= 0x80 and the bytes of
// set, with upper-case hex digits; existing escapes are kept as they are.
func percentEncode(s, set string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || strings.IndexByte(set, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func urlUnescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s)+0 && isHex(s[i+1]) && isHex(s[i+2]) {
			n, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(n))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
