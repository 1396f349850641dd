package render

import (
	"regexp"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	text := strings.Repeat("Plain words of a documentation page that a server wrote. ", 20)
	cases := []struct {
		name, html, want string
	}{
		{"plain", `<html><body><h1>T</h1><p>` + text + `</p><a href="/a">a</a><script defer src="x.js"></script></body></html>`, ""},
		{"plain with nav", `<html><body><nav id="toc"><a href="/a">a</a></nav><p>` + text + `</p><script>1</script></body></html>`, ""},
		{"app root", `<html><body><div id="root"></div><script src="/app.js"></script></body></html>`, ReasonAppRoot},
		{"filled app root", `<html><body><div id="root"><p>` + text + `</p></div><script src="/app.js"></script></body></html>`, ""},
		{"noscript", `<html><body><p>` + text + `</p><noscript>Please enable JavaScript to view this site.</noscript></body></html>`, ReasonNoscript},
		{"noscript search", `<html><body><p>` + text + `</p><noscript>Please activate JavaScript to enable the search functionality.</noscript></body></html>`, ""},
		{"noscript image", `<html><body><p>` + text + `</p><noscript><img src="/pixel.gif"></noscript></body></html>`, ""},
		{"empty nav", `<html><body><p>` + text + `</p><ul class="sidebar-menu"></ul><script>build()</script></body></html>`, ReasonEmptyNav},
		{"empty nav without script", `<html><body><p>` + text + `</p><nav></nav></body></html>`, ""},
		{"load more button", `<html><body><p>` + text + `</p><button>Load more</button></body></html>`, ReasonLoadMore},
		{"infinite scroll", `<html><body><p>` + text + `</p><script>addEventListener('scroll', () => fetch('/more'))</script></body></html>`, ReasonLoadMore},
		{"script-written content", `<html><body><main></main><script>document.querySelector('main').innerHTML = data</script></body></html>`, ReasonScriptLinks},
		{"hydration", `<html><body><p>short</p><script id="__NEXT_DATA__" type="application/json">{}</script></body></html>`, ReasonHydration},
		{"little text", `<html><body><p>hi</p><script>` + strings.Repeat("var x = 1;", 1000) + `</script><a href=/a>a</a><a href=/b>b</a><a href=/c>c</a></body></html>`, ReasonLittleText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Detect([]byte(c.html)); got.Reason != c.want {
				t.Errorf("Detect = %q (%+v), want %q", got.Reason, got, c.want)
			}
		})
	}
}

func TestDeciderLearns(t *testing.T) {
	shell := []byte(`<html><body><div id="app"></div><script src="/a.js"></script></body></html>`)
	plain := []byte(`<html><body><p>` + strings.Repeat("words ", 200) + `</p></body></html>`)
	d := NewDecider(Auto, nil, 3, 4)
	// a host whose flagged pages gain settles to "all": a page the check
	// misses is rendered too
	for range 3 {
		dec := d.Decide("http://spa/x", "spa", check(shell))
		if !dec.Render || !dec.Observe {
			t.Fatalf("shell not rendered: %+v", dec)
		}
		d.Observe("spa", true)
	}
	if dec := d.Decide("http://spa/y", "spa", check(plain)); !dec.Render || dec.Reason != ReasonHost {
		t.Fatalf("settled host: plain-looking page not rendered: %+v", dec)
	}
	d.Observe("spa", false) // it gained nothing: learn again
	if dec := d.Decide("http://spa/z", "spa", check(plain)); dec.Render {
		t.Fatalf("host back to learning: plain page rendered: %+v", dec)
	}
	// a host whose flagged pages never gain settles to "none": one flagged
	// page in 4 is still rendered
	for range 3 {
		if dec := d.Decide("http://docs/x", "docs", check(shell)); !dec.Render {
			t.Fatalf("flagged page not rendered while learning: %+v", dec)
		}
		d.Observe("docs", false)
	}
	rendered := 0
	for range 8 {
		if dec := d.Decide("http://docs/x", "docs", check(shell)); dec.Render {
			rendered++
			d.Observe("docs", false)
		}
	}
	if rendered != 2 {
		t.Errorf("host settled to none rendered %d of 8 flagged pages, want 2", rendered)
	}
	c := d.Counts()
	if c.Skipped != 6 || c.HostsNone != 1 {
		t.Errorf("counts %+v", c)
	}
	// rules win over the mode
	d = NewDecider(Never, []Rule{{Match: mustRE(`/app/`), Mode: Always}}, 0, 0)
	if dec := d.Decide("http://h/app/1", "h", check(plain)); !dec.Render || dec.Reason != ReasonRule {
		t.Errorf("rule: %+v", dec)
	}
	if dec := d.Decide("http://h/doc", "h", check(shell)); dec.Render {
		t.Errorf("never: %+v", dec)
	}
}

func mustRE(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// check is the cheap check of page.
func check(page []byte) func() Clue { return func() Clue { return Detect(page) } }

// A missing browser is an error naming the Debian package, from New (a
// crawl that can render stops at its start).
func TestMissingBrowser(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := New(Options{}); err != ErrNoBrowser {
		t.Errorf("New with no browser in PATH: %v", err)
	}
	_, err := New(Options{BrowserPath: "/nonexistent/chromium"})
	if err == nil || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Errorf("New with a missing browser_path: %v", err)
	}
}
