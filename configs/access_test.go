package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccessErrors: a malformed proxy URL, header, cookie or cookies file
// and a missing credential variable are errors naming the file, the line
// and the field, and no error shows a password.
func TestAccessErrors(t *testing.T) {
	dir := t.TempDir()
	badCookies := filepath.Join(dir, "cookies.txt")
	if err := os.WriteFile(badCookies, []byte("# Netscape HTTP Cookie File\nexample.com\tFALSE\t/\tFALSE\t0\tsid\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BLOOMCRAWL_TEST_SET", "s3cret")
	cases := []struct{ yaml, want string }{
		{"fetch:\n  proxy: \"ftp://user:hunter2@proxy:21\"\n", "f.yaml:2: fetch.proxy: ftp://proxy:21 must be a http://"},
		{"fetch:\n  proxy: \"http://user:hunter2@proxy:3128/path\"\n", "f.yaml:2: fetch.proxy: http://proxy:3128/path must be scheme://"},
		{"fetch:\n  proxy_rules:\n    - match: \"*.example.com\"\n      proxy: nowhere\n", "f.yaml:4: fetch.proxy_rules[0].proxy: nowhere must be a"},
		{"fetch:\n  proxy_rules:\n    - match: \"[bad\"\n      proxy: direct\n", "f.yaml:3: fetch.proxy_rules[0].match"},
		{"fetch:\n  headers:\n    - \"X-Ok: 1\"\n    - \"no colon\"\n", "f.yaml:4: fetch.headers[1]: \"no colon\" is not"},
		{"fetch:\n  headers: [\"Authorization: Bearer hunter2\"]\n", "f.yaml:2: fetch.headers[0]: Authorization: a credential is never written"},
		{"fetch:\n  cookies: [\"sid=hunter2\"]\n", "f.yaml:2: fetch.cookies[0]: cookie sid has no Domain="},
		{"fetch:\n  cookies_file: " + badCookies + "\n", "f.yaml:2: fetch.cookies_file: " + badCookies + ":2: want 7 tab-separated fields"},
		{"fetch:\n  host_rules:\n    - match: example.com\n      basic_auth:\n        user: bob\n        password_env: BLOOMCRAWL_TEST_UNSET\n",
			"f.yaml:4: fetch.host_rules[0].basic_auth: environment variable BLOOMCRAWL_TEST_UNSET (password_env) is not set"},
		{"fetch:\n  host_rules:\n    - match: example.com\n      basic_auth: {user: bob}\n", "f.yaml:4: fetch.host_rules[0].basic_auth: needs password_env or password_file"},
		{"fetch:\n  host_rules:\n    - match: example.com\n      basic_auth: {user: bob, password_file: /nonexistent/pw}\n", "f.yaml:4: fetch.host_rules[0].basic_auth: password_file: open /nonexistent/pw"},
		{"politeness:\n  delay: 2s\n  max_delay: 1s\n", "f.yaml:3: politeness.max_delay: must be >= politeness.delay"},
		{"politeness:\n  host_failures: -1\n", "f.yaml:2: politeness.host_failures: must be >= 0"},
	}
	for _, tc := range cases {
		_, err := Parse("f.yaml", []byte(tc.yaml))
		if err == nil {
			t.Errorf("%q: no error", tc.yaml)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s", tc.yaml, err, tc.want)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the secret: %v", tc.yaml, err)
		}
	}
	ok := "fetch:\n  proxy: \"socks5://u:p@127.0.0.1:1080\"\n  no_proxy: [localhost, .internal]\n  headers: [\"X-Team: crawl\"]\n" +
		"  cookies: [\"lang=en; Domain=example.com; Path=/\"]\n  host_rules:\n    - match: \"*.example.com\"\n      basic_auth: {user: bob, password_env: BLOOMCRAWL_TEST_SET}\n"
	if _, err := Parse("ok.yaml", []byte(ok)); err != nil {
		t.Fatal(err)
	}
}

func TestMatchHost(t *testing.T) {
	for _, tc := range []struct {
		pattern, host string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "example.com:8080", true},
		{"example.com", "www.example.com", false},
		{"*.example.com", "www.example.com:443", true},
		{"*.example.com", "example.com", false},
		{"127.0.0.1", "127.0.0.1:5000", true},
		{"127.0.0.1", "127.0.0.2:5000", false},
		{"127.0.0.1:5000", "127.0.0.1:5000", true},
		{"127.0.0.1:5000", "127.0.0.1:5001", false},
		{"EXAMPLE.com", "example.COM", true},
	} {
		if got := MatchHost(tc.pattern, tc.host); got != tc.want {
			t.Errorf("MatchHost(%q, %q) = %v", tc.pattern, tc.host, got)
		}
	}
}
