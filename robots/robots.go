package robots

import (
	"strconv"
	"strings"
	"time"
)

// MaxBytes is the part of a robots.txt a crawler should read and parse:
// 512 KiB (RFC 9309 §2.5 asks for at least 500 KiB).
const MaxBytes = 512 << 10

// maxLineBytes is where a long line is cut (Google's parser keeps 8 × 2083
// bytes minus its terminator).
const maxLineBytes = 8*2083 - 1

// Rules is a parsed robots.txt. Its methods are safe for concurrent use.
// The zero value (and nil) allows everything.
type Rules struct {
	groups []group
	// Sitemaps are the values of the file's Sitemap lines, in file order.
	Sitemaps []string
}

type group struct {
	agents     []string // product tokens, lowercase; "*" for the global group
	rules      []rule
	crawlDelay time.Duration
	hasDelay   bool
}

type rule struct {
	allow   bool
	pattern string // percent-encoding normalised; length is its priority
}

// Parse parses a robots.txt body. It never fails; see the package doc for
// what is read and what is ignored.
func Parse(body []byte) *Rules {
	r := &Rules{}
	var cur *group
	inAgents := false // the last group-affecting line was a user-agent line
	for _, line := range lines(body) {
		key, value, ok := keyValue(line)
		if !ok {
			continue
		}
		switch strings.ToLower(key) {
		case "user-agent":
			if !inAgents || cur == nil {
				r.groups = append(r.groups, group{})
				cur = &r.groups[len(r.groups)-1]
				inAgents = true
			}
			cur.agents = append(cur.agents, agentValue(value))
		case "allow", "disallow":
			if cur == nil {
				continue // outside any group (§2.1)
			}
			inAgents = false
			if value == "" {
				continue // matches nothing
			}
			cur.rules = append(cur.rules, rule{allow: strings.EqualFold(key, "allow"), pattern: normalize(value)})
		case "crawl-delay":
			if cur == nil {
				continue
			}
			inAgents = false // a group member, like a rule
			if s, err := strconv.ParseFloat(value, 64); err == nil && s >= 0 && s < 1e6 {
				cur.crawlDelay, cur.hasDelay = time.Duration(s*float64(time.Second)), true
			}
		case "sitemap":
			r.Sitemaps = append(r.Sitemaps, value)
		}
	}
	return r
}

// lines splits body at LF, CR and CRLF, after skipping a UTF-8 byte order
// mark (or a prefix of one), and cuts each line at maxLineBytes.
func lines(body []byte) []string {
	bom := []byte{0xEF, 0xBB, 0xBF}
	for i := 0; i < len(bom) && len(body) > 0 && body[0] == bom[i]; i++ {
		body = body[1:]
	}
	s := string(body)
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			i = len(s)
		}
		line := s[:i]
		if len(line) > maxLineBytes {
			line = line[:maxLineBytes]
		}
		out = append(out, line)
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "\r\n"):
			s = s[2:]
		case len(s) > 0:
			s = s[1:]
		}
	}
	return out
}

// keyValue splits a line into its field name and value, comments removed
// and both trimmed. A line without a colon is accepted when it is exactly
// two words ("disallow /").
func keyValue(line string) (key, value string, ok bool) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return "", "", false
	}
	key, value, ok = strings.Cut(line, ":")
	if !ok {
		f := strings.Fields(line)
		if len(f) != 2 {
			return "", "", false
		}
		key, value = f[0], f[1]
	}
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	return key, value, key != ""
}

// agentValue returns the product token a user-agent line names, lowercase:
// "*" for the global group, else its value up to the first character
// outside [A-Za-z_-] (RFC 9309 §2.2.1).
func agentValue(v string) string {
	if v == "*" || strings.HasPrefix(v, "*") && len(v) > 1 && (v[1] == ' ' || v[1] == '\t') {
		return "*"
	}
	end := 0
	for end < len(v) && isTokenByte(v[end]) {
		end++
	}
	return strings.ToLower(v[:end])
}

func isTokenByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_' || b == '-'
}

// ValidToken reports whether token may name a crawler in robots.txt: not
// empty, and only the characters A-Z, a-z, "_" and "-" (RFC 9309 §2.2.1).
func ValidToken(token string) bool {
	if token == "" {
		return false
	}
	for i := 0; i < len(token); i++ {
		if !isTokenByte(token[i]) {
			return false
		}
	}
	return true
}

// normalize percent-encodes the octets of s outside printable ASCII and
// writes every existing escape in upper-case hex. Other characters,
// reserved ones and "*" and "$" included, stay as they are.
func normalize(s string) string {
	const hexd = "0123456789ABCDEF"
	need := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c <= ' ' || c >= 0x7f {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte('%')
			b.WriteByte(upper(s[i+1]))
			b.WriteByte(upper(s[i+2]))
			i += 2
		case c <= ' ' || c >= 0x7f:
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// normalizeEscapes writes the escapes of path in upper-case hex and
// leaves everything else as it is: a request target is already
// percent-encoded, and an octet the caller did not encode matches no rule
// (rules are encoded), as in Google's reference implementation.
func normalizeEscapes(path string) string {
	if !strings.Contains(path, "%") {
		return path
	}
	b := []byte(path)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' && isHex(b[i+1]) && isHex(b[i+2]) {
			b[i+1], b[i+2] = upper(b[i+1]), upper(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

func upper(b byte) byte {
	if 'a' <= b && b <= 'f' {
		return b - 'a' + 'A'
	}
	return b
}

// groupsFor returns the groups that apply to token (lowercased): every
// group naming it, else every "*" group.
func (r *Rules) groupsFor(token string) []*group {
	if r == nil {
		return nil
	}
	token = strings.ToLower(strings.TrimSpace(token))
	var specific, global []*group
	for i := range r.groups {
		g := &r.groups[i]
		for _, a := range g.agents {
			if a == "*" {
				global = append(global, g)
				break
			}
			if a != "" && a == token {
				specific = append(specific, g)
				break
			}
		}
	}
	if len(specific) > 0 {
		return specific
	}
	return global
}

// Allowed reports whether the crawler whose product token is token
// ("bloomcrawl"; compared case-insensitively) may fetch path, the request
// target of the URL: its path and query as the request sends them
// ("/a/b?c=d"; url.URL.RequestURI). An empty path is "/".
func (r *Rules) Allowed(token, path string) bool {
	if path == "" {
		path = "/"
	}
	path = normalizeEscapes(path)
	bestAllow, bestDisallow := -1, -1
	for _, g := range r.groupsFor(token) {
		for _, ru := range g.rules {
			n := len(ru.pattern)
			if ru.allow && n <= bestAllow || !ru.allow && n <= bestDisallow {
				continue
			}
			if !match(ru.pattern, path) {
				continue
			}
			if ru.allow {
				bestAllow = n
			} else {
				bestDisallow = n
			}
		}
	}
	return bestDisallow < 0 || bestAllow >= bestDisallow
}

// CrawlDelay returns the Crawl-delay the groups that apply to token ask
// for (the longest, when several groups set one), and whether any does.
func (r *Rules) CrawlDelay(token string) (time.Duration, bool) {
	var d time.Duration
	found := false
	for _, g := range r.groupsFor(token) {
		if g.hasDelay {
			d, found = max(d, g.crawlDelay), true
		}
	}
	return d, found
}

// match reports whether pattern matches a prefix of path ("*" matches any
// sequence of octets; a "$" at the end of pattern anchors it at the end of
// path; elsewhere "$" is literal).
func match(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		if anchored {
			return path == pattern
		}
		return strings.HasPrefix(path, pattern)
	}
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	pos := len(parts[0])
	last := len(parts) - 1
	for _, p := range parts[1:last] {
		i := strings.Index(path[pos:], p)
		if i < 0 {
			return false
		}
		pos += i + len(p)
	}
	tail := parts[last]
	if anchored {
		return len(path)-pos >= len(tail) && strings.HasSuffix(path, tail)
	}
	return strings.Contains(path[pos:], tail)
}
