package urlfilter

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestScope(t *testing.T) {
	s, err := NewScope(ScopeOptions{
		AllowedHosts: []string{"Example.com", "bücher.example"},
		DeniedHosts:  []string{"private.example.com"},
		Include:      []string{`^https?://[^/]+/(docs|blog)/`},
		Exclude:      []string{`\.(zip|pdf)$`, `[?&]sort=`},
		MaxURLLength: 60,
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url string
		ok  bool
		why string
	}{
		{"http://example.com/docs/a", true, ""},
		{"http://www.example.com/blog/b", true, ""},
		{"http://xn--bcher-kva.example/docs/", true, ""},
		{"http://notexample.com/docs/a", false, "not in allowed"},
		{"http://private.example.com/docs/a", false, "denied"},
		{"http://a.private.example.com/docs/a", false, "denied"},
		{"http://example.com/about", false, "no include"},
		{"http://example.com/docs/file.zip", false, "exclude"},
		{"http://example.com/docs/?sort=asc", false, "exclude"},
		{"http://example.com/docs/" + strings.Repeat("x", 60), false, "longer than 60"},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.url)
		err := s.Check(u)
		if tt.ok != (err == nil) {
			t.Errorf("Check(%s) = %v, want ok=%v", tt.url, err, tt.ok)
			continue
		}
		if err != nil && (!errors.Is(err, ErrOutOfScope) || !strings.Contains(err.Error(), tt.why)) {
			t.Errorf("Check(%s) = %v, want ErrOutOfScope mentioning %q", tt.url, err, tt.why)
		}
	}
}

func TestScopeDefaults(t *testing.T) {
	s, err := NewScope(ScopeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://anything.test/" + strings.Repeat("a", 2000))
	if err := s.Check(u); err != nil {
		t.Errorf("2021-byte URL refused: %v", err)
	}
	u, _ = url.Parse("http://anything.test/" + strings.Repeat("a", 2100))
	if err := s.Check(u); err == nil {
		t.Error("2121-byte URL accepted with the default 2048 limit")
	}
}

func TestNewScopeErrors(t *testing.T) {
	_, err := NewScope(ScopeOptions{Exclude: []string{`ok`, `a(b`}})
	if err == nil || !strings.Contains(err.Error(), `Exclude[1] "a(b"`) {
		t.Errorf("bad regexp: got %v, want error naming Exclude[1] \"a(b\"", err)
	}
	_, err = NewScope(ScopeOptions{AllowedHosts: []string{"bad host"}})
	if err == nil || !strings.Contains(err.Error(), "AllowedHosts[0]") {
		t.Errorf("bad host: got %v", err)
	}
}
