package robots

import (
	"fmt"
	"testing"
	"time"
)

func TestProductToken(t *testing.T) {
	txt := "User-agent: Foo\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
	r := Parse([]byte(txt))
	for _, c := range []struct {
		token string
		want  bool
	}{
		{"foo", false}, {"FOO", false}, {"FooBot", true}, {"foob", true}, {"bar", true},
	} {
		if got := r.Allowed(c.token, "/x"); got != c.want {
			t.Errorf("Allowed(%q) = %v, want %v", c.token, got, c.want)
		}
	}
}

func TestCrawlDelayAndSitemaps(t *testing.T) {
	txt := "Sitemap: https://a.example/s1.xml\nUser-agent: *\nCrawl-delay: 1.5\nUser-agent: other\nCrawl-delay: 9\nDisallow: /x\n"
	r := Parse([]byte(txt))
	if d, ok := r.CrawlDelay("bloomcrawl"); !ok || d != 1500*time.Millisecond {
		t.Errorf("CrawlDelay = %v, %v; want 1.5s", d, ok)
	}
	if d, ok := r.CrawlDelay("other"); !ok || d != 9*time.Second {
		t.Errorf("CrawlDelay(other) = %v, %v; want 9s", d, ok)
	}
	if len(r.Sitemaps) != 1 || r.Sitemaps[0] != "https://a.example/s1.xml" {
		t.Errorf("Sitemaps = %q", r.Sitemaps)
	}
	var nilRules *Rules
	if !nilRules.Allowed("x", "/") {
		t.Error("nil Rules disallow")
	}
}

func TestEscapeCase(t *testing.T) {
	r := Parse([]byte("User-agent: *\nDisallow: /a%2fb\nDisallow: /é\n"))
	for path, want := range map[string]bool{"/a%2Fb": false, "/a%2fb": false, "/a/b": true, "/%C3%A9": false, "/%c3%a9x": false} {
		if got := r.Allowed("bot", path); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestLargeFile checks that rules past the first 500 KiB are read.
func TestLargeFile(t *testing.T) {
	b := []byte("User-agent: *\n")
	for i := 0; len(b) < 510<<10; i++ {
		b = fmt.Appendf(b, "Allow: /page-%d\n", i)
	}
	b = append(b, "Disallow: /last\n"...)
	if len(b) > MaxBytes {
		t.Fatalf("test file %d bytes > MaxBytes", len(b))
	}
	if Parse(b).Allowed("bot", "/last") {
		t.Error("rule after 510 KiB not read")
	}
}

func Example() {
	rules := Parse([]byte("User-agent: *\nDisallow: /private/\nAllow: /private/open$\n"))
	fmt.Println(rules.Allowed("bloomcrawl", "/private/data"))
	fmt.Println(rules.Allowed("bloomcrawl", "/private/open"))
	fmt.Println(rules.Allowed("bloomcrawl", "/public?q=1"))
	// Output:
	// false
	// true
	// true
}
