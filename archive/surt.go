package archive

import (
	"regexp"
	"slices"
	"strings"

	whatwg "github.com/nlnwa/whatwg-url/url"
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
	p, err := whatwg.Parse(u)
	if err != nil {
		return "", err
	}
	host := p.Hostname()
	labels := []string{host}
	if !p.IsIPv6() {
		labels = strings.Split(host, ".")
		slices.Reverse(labels)
	}
	var b strings.Builder
	b.WriteString(strings.Join(labels, ","))
	if port := p.Port(); port != "" {
		b.WriteString(":" + port)
	}
	b.WriteString(")")
	b.WriteString(p.Pathname())
	if q := p.Query(); q != "" {
		args := strings.Split(q, "&")
		slices.Sort(args)
		b.WriteString("?" + strings.Join(args, "&"))
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
