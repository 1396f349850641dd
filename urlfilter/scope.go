package urlfilter

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// ErrOutOfScope is wrapped by Scope.Check for every URL outside the scope.
var ErrOutOfScope = errors.New("urlfilter: out of scope")

// DefaultMaxURLLength is the URL length limit when ScopeOptions.MaxURLLength
// is 0.
const DefaultMaxURLLength = 2048

// ScopeOptions configures NewScope. The zero value allows every http(s) URL
// up to 2048 bytes.
type ScopeOptions struct {
	// AllowedHosts, when not empty, restricts URLs to these hosts and their
	// subdomains ("example.com" allows "docs.example.com"). Compared after
	// canonicalization (lower case, IDNA ASCII).
	AllowedHosts []string
	// DeniedHosts are refused with their subdomains, even when allowed.
	DeniedHosts []string
	// Include, when not empty, requires the URL to match at least one of
	// these regular expressions (RE2 syntax, unanchored).
	Include []string
	// Exclude refuses URLs matching any of these regular expressions.
	Exclude []string
	// MaxURLLength is the longest URL (in bytes) accepted; 0 means 2048.
	MaxURLLength int
}

// Scope decides which canonical URLs a crawl may visit. It is immutable and
// safe for concurrent use.
type Scope struct {
	allowed, denied  []string
	include, exclude []*regexp.Regexp
	maxLen           int
}

// NewScope compiles o. It returns an error naming the bad pattern (and its
// list) for a regexp that does not compile, or a bad host or length.
func NewScope(o ScopeOptions) (*Scope, error) {
	s := &Scope{maxLen: o.MaxURLLength}
	if s.maxLen == 0 {
		s.maxLen = DefaultMaxURLLength
	}
	if s.maxLen < 0 {
		return nil, fmt.Errorf("urlfilter: MaxURLLength %d is negative", o.MaxURLLength)
	}
	var err error
	if s.allowed, err = scopeHosts("AllowedHosts", o.AllowedHosts); err != nil {
		return nil, err
	}
	if s.denied, err = scopeHosts("DeniedHosts", o.DeniedHosts); err != nil {
		return nil, err
	}
	if s.include, err = compileAll("Include", o.Include); err != nil {
		return nil, err
	}
	if s.exclude, err = compileAll("Exclude", o.Exclude); err != nil {
		return nil, err
	}
	return s, nil
}

func scopeHosts(field string, hosts []string) ([]string, error) {
	out := make([]string, 0, len(hosts))
	for i, h := range hosts {
		h = strings.TrimSpace(h)
		if hh, _, ok := strings.Cut(h, ":"); ok && !strings.Contains(h, "[") {
			h = hh // a port is ignored: scope is by host
		}
		c, err := canonicalHost(strings.Trim(h, "[]"))
		if err != nil {
			return nil, fmt.Errorf("urlfilter: %s[%d] %q: %w", field, i, hosts[i], err)
		}
		out = append(out, c)
	}
	return out, nil
}

func compileAll(field string, pats []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(pats))
	for i, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("urlfilter: %s[%d] %q: %w", field, i, p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

func hostMatches(host string, list []string) bool {
	for _, h := range list {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// Check returns nil if u is in scope, and otherwise an error wrapping
// ErrOutOfScope that says which rule refused it. u should be canonical
// (see Canonicalize); hosts are compared in lower case.
func (s *Scope) Check(u *url.URL) error {
	str := u.String()
	if len(str) > s.maxLen {
		return fmt.Errorf("%w: URL is %d bytes, longer than %d", ErrOutOfScope, len(str), s.maxLen)
	}
	if sc := strings.ToLower(u.Scheme); sc != "http" && sc != "https" {
		return fmt.Errorf("%w: scheme %q", ErrOutOfScope, u.Scheme)
	}
	host := strings.ToLower(u.Hostname())
	if len(s.allowed) > 0 && !hostMatches(host, s.allowed) {
		return fmt.Errorf("%w: host %q not in allowed hosts", ErrOutOfScope, host)
	}
	if hostMatches(host, s.denied) {
		return fmt.Errorf("%w: host %q is denied", ErrOutOfScope, host)
	}
	if len(s.include) > 0 {
		ok := false
		for _, re := range s.include {
			if re.MatchString(str) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("%w: matches no include pattern", ErrOutOfScope)
		}
	}
	for _, re := range s.exclude {
		if re.MatchString(str) {
			return fmt.Errorf("%w: matches exclude pattern %q", ErrOutOfScope, re.String())
		}
	}
	return nil
}
