package samplesite

import (
	"net/url"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// TestManifestURLsAreCanonical checks the Manifest against the crawler's
// real canonicalizer: every Alias canonicalizes to its Canonical path, and
// every other path the Manifest names is already canonical (so that a crawl
// keyed by canonical URLs can be compared with it path for path).
func TestManifestURLsAreCanonical(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:8080/")
	m := New().Manifest()
	canon := func(href string) string {
		u, err := urlfilter.Canonicalize(base, href)
		if err != nil {
			t.Fatalf("Canonicalize(%q): %v", href, err)
		}
		return u.String()
	}
	for _, a := range m.Aliases {
		if got, want := canon(a.Href), canon(a.Canonical); got != want || want != "http://127.0.0.1:8080"+a.Canonical {
			t.Errorf("alias %s canonicalizes to %s; manifest says %s", a.Href, got, a.Canonical)
		}
	}
	var paths []string
	for _, d := range m.Docs {
		paths = append(paths, d.Path)
		paths = append(paths, d.Redirects...)
		for _, c := range d.Copies {
			paths = append(paths, c.Path)
		}
	}
	for _, r := range m.Redirects {
		paths = append(paths, r.From, r.To)
	}
	for _, f := range m.Errors {
		paths = append(paths, f.Path)
	}
	for _, r := range m.Resources {
		paths = append(paths, r.Path)
	}
	paths = append(paths, m.Disallowed...)
	paths = append(paths, m.Trap.First, m.RobotsTxt, m.Slow)
	for _, p := range paths {
		if got := canon(p); got != "http://127.0.0.1:8080"+p {
			t.Errorf("%s is not canonical: canonicalizes to %s", p, got)
		}
	}
}
