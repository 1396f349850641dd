package urlfilter

import (
	"errors"
	"fmt"
	"net/url"
	"testing"
)

func TestCanonicalize(t *testing.T) {
	base, _ := url.Parse("http://Example.COM/docs/guide/index.html?x=1#top")
	tests := []struct {
		base *url.URL
		href string
		want string
	}{
		{nil, "HTTP://WWW.Example.COM:80/a/b", "http://www.example.com/a/b"},
		{nil, "https://example.com:443", "https://example.com/"},
		{nil, "https://example.com:8443/", "https://example.com:8443/"},
		{nil, "http://example.com:/x", "http://example.com/x"},
		{nil, "http://example.com./x", "http://example.com/x"},
		{nil, "http://example.com/a/./b/../c/", "http://example.com/a/c/"},
		{nil, "http://example.com/../../a", "http://example.com/a"},
		{nil, "http://example.com/a/%2E%2E/b", "http://example.com/b"},
		{nil, "http://example.com/%7euser/%41%62c", "http://example.com/~user/Abc"},
		{nil, "http://example.com/a%2fb%3a", "http://example.com/a%2Fb%3A"},
		{nil, "http://example.com/a b", "http://example.com/a%20b"},
		{nil, "http://example.com/p?b=2&a=1&a=0", "http://example.com/p?a=0&a=1&b=2"},
		{nil, "http://example.com/p?utm_source=x&id=7&UTM_Medium=y&fbclid=z&gclid=1", "http://example.com/p?id=7"},
		{nil, "http://example.com/p?utm_source=x", "http://example.com/p"},
		{nil, "http://example.com/p?", "http://example.com/p"},
		{nil, "http://example.com/p;jsessionid=1?PHPSESSID=abc&q=go", "http://example.com/p;jsessionid=1?q=go"},
		{nil, "http://example.com/p?q=a+b&r=a%20b", "http://example.com/p?q=a+b&r=a%20b"},
		{nil, "http://example.com/p?q=%e4%b8%ad", "http://example.com/p?q=%E4%B8%AD"},
		{nil, "http://example.com/p#frag", "http://example.com/p"},
		{nil, "http://bücher.example/", "http://xn--bcher-kva.example/"},
		{nil, "http://中文.cn/路径", "http://xn--fiq228c.cn/%E8%B7%AF%E5%BE%84"},
		{nil, "http://[2001:DB8::1]:80/", "http://[2001:db8::1]/"},
		{nil, "  http://example.com/x  ", "http://example.com/x"},
		{base, "../api/", "http://example.com/docs/api/"},
		{base, "next.html#s2", "http://example.com/docs/guide/next.html"},
		{base, "?page=2", "http://example.com/docs/guide/index.html?page=2"},
		{base, "//cdn.example.com/x", "http://cdn.example.com/x"},
		{base, "/", "http://example.com/"},
		{base, "#only-fragment", "http://example.com/docs/guide/index.html?x=1"},
	}
	for _, tt := range tests {
		got, err := Canonicalize(tt.base, tt.href)
		if err != nil {
			t.Errorf("Canonicalize(%q): %v", tt.href, err)
			continue
		}
		if got.String() != tt.want {
			t.Errorf("Canonicalize(%q) = %q, want %q", tt.href, got, tt.want)
		}
	}
}

func TestCanonicalizeErrors(t *testing.T) {
	for _, href := range []string{"mailto:a@example.com", "javascript:void(0)", "ftp://example.com/", "data:text/plain,hi"} {
		if _, err := Canonicalize(nil, href); !errors.Is(err, ErrScheme) {
			t.Errorf("Canonicalize(%q) = %v, want ErrScheme", href, err)
		}
	}
	for _, href := range []string{"/relative/path", "http://", "http:opaque", "http://exa mple.com/", "http://[::1", "%zz"} {
		if u, err := Canonicalize(nil, href); err == nil {
			t.Errorf("Canonicalize(%q) = %q, want error", href, u)
		}
	}
}

func TestCanonicalizerStripParams(t *testing.T) {
	c := &Canonicalizer{StripParams: []string{"ref", "trk*"}}
	got, err := c.Canonicalize(nil, "http://example.com/?ref=a&trkid=2&utm_source=x&z=1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://example.com/?utm_source=x&z=1"; got.String() != want {
		t.Errorf("got %q, want %q", got, want)
	}
	none := &Canonicalizer{StripParams: []string{}}
	got, _ = none.Canonicalize(nil, "http://example.com/?utm_source=x")
	if want := "http://example.com/?utm_source=x"; got.String() != want {
		t.Errorf("empty StripParams: got %q, want %q", got, want)
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{"http://example.com/a/../b?x=1&utm_x=2#f", "https://bücher.example:443/%7e/", "http://[::1]:8080/p?b&a=%zz",
		"http://a/b/c/./../../g", "http://example.com/%2e%2E/x?q=a+b", "HTTP://EX.com:0080/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, href string) {
		u1, err := Canonicalize(nil, href)
		if err != nil {
			return
		}
		u2, err := Canonicalize(nil, u1.String())
		if err != nil {
			t.Fatalf("canonical %q of %q does not canonicalize: %v", u1, href, err)
		}
		if u1.String() != u2.String() {
			t.Fatalf("not idempotent: %q -> %q -> %q", href, u1, u2)
		}
	})
}

func ExampleCanonicalize() {
	base, _ := url.Parse("https://Docs.Example.com/guide/intro.html")
	u, _ := Canonicalize(base, "../api/./index.html?utm_source=news&b=2&a=1#methods")
	fmt.Println(u)
	// Output: https://docs.example.com/api/index.html?a=1&b=2
}
