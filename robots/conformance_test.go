package robots

import (
	"strings"
	"testing"
)

// The conformance cases are the IsUserAgentAllowed assertions of Google's
// robots.txt reference library, github.com/google/robotstxt, file
// robots_test.cc (commit 22b355f), the implementation RFC 9309 was written
// from. rfcCases are those of its tests about RFC behaviour (named ID_*);
// googleCases those of its Google-specific tests (GoogleOnly_*), which the
// package is not required to pass. The robots.txt bodies, user agents, URLs
// and expected answers are the suite's test data; the test code is ours.
//
// Reproduce: go test ./robots -run Conformance -v

type conformanceCase struct {
	test   string // the reference test the assertion comes from
	robots string
	agent  string
	url    string
	want   bool
}

const (
	groupsTxt = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n"
	upperTxt  = "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n"
	lowerTxt  = "user-agent: FooBot\nallow: /x/\ndisallow: /\n"
	camelTxt  = "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n"
	uaUpper   = "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n"
	uaLower   = "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n"
	uaCamel   = "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n"
	globalTxt = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n"
	specTxt   = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n"
	fooSlash  = "user-agent: FooBot\ndisallow: /\n"
)

var rfcCases = []conformanceCase{
	{"ID_LineSyntax_Line", "user-agent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", false},
	{"ID_LineSyntax_Line", "foo: FooBot\nbar: /\n", "FooBot", "http://foo.bar/x/y", true},
	{"ID_LineSyntax_Line", "user-agent FooBot\ndisallow /\n", "FooBot", "http://foo.bar/x/y", false},

	{"ID_LineSyntax_Groups", groupsTxt, "FooBot", "http://foo.bar/x/b", true},
	{"ID_LineSyntax_Groups", groupsTxt, "FooBot", "http://foo.bar/z/d", true},
	{"ID_LineSyntax_Groups", groupsTxt, "FooBot", "http://foo.bar/y/c", false},
	{"ID_LineSyntax_Groups", groupsTxt, "BarBot", "http://foo.bar/y/c", true},
	{"ID_LineSyntax_Groups", groupsTxt, "BarBot", "http://foo.bar/w/a", true},
	{"ID_LineSyntax_Groups", groupsTxt, "BarBot", "http://foo.bar/z/d", false},
	{"ID_LineSyntax_Groups", groupsTxt, "BazBot", "http://foo.bar/z/d", true},
	{"ID_LineSyntax_Groups", groupsTxt, "FooBot", "http://foo.bar/foo/bar/", false},
	{"ID_LineSyntax_Groups", groupsTxt, "BarBot", "http://foo.bar/foo/bar/", false},
	{"ID_LineSyntax_Groups", groupsTxt, "BazBot", "http://foo.bar/foo/bar/", false},

	{"ID_LineSyntax_Groups_OtherRules", "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n", "FooBot", "http://foo.bar/", false},
	{"ID_LineSyntax_Groups_OtherRules", "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n", "BarBot", "http://foo.bar/", false},
	{"ID_LineSyntax_Groups_OtherRules", "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n", "FooBot", "http://foo.bar/", false},
	{"ID_LineSyntax_Groups_OtherRules", "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n", "BarBot", "http://foo.bar/", false},

	{"ID_REPLineNamesCaseInsensitive", upperTxt, "FooBot", "http://foo.bar/x/y", true},
	{"ID_REPLineNamesCaseInsensitive", lowerTxt, "FooBot", "http://foo.bar/x/y", true},
	{"ID_REPLineNamesCaseInsensitive", camelTxt, "FooBot", "http://foo.bar/x/y", true},
	{"ID_REPLineNamesCaseInsensitive", upperTxt, "FooBot", "http://foo.bar/a/b", false},
	{"ID_REPLineNamesCaseInsensitive", lowerTxt, "FooBot", "http://foo.bar/a/b", false},
	{"ID_REPLineNamesCaseInsensitive", camelTxt, "FooBot", "http://foo.bar/a/b", false},

	{"ID_UserAgentValueCaseInsensitive", uaUpper, "Foo", "http://foo.bar/x/y", true},
	{"ID_UserAgentValueCaseInsensitive", uaLower, "Foo", "http://foo.bar/x/y", true},
	{"ID_UserAgentValueCaseInsensitive", uaCamel, "Foo", "http://foo.bar/x/y", true},
	{"ID_UserAgentValueCaseInsensitive", uaUpper, "Foo", "http://foo.bar/a/b", false},
	{"ID_UserAgentValueCaseInsensitive", uaLower, "Foo", "http://foo.bar/a/b", false},
	{"ID_UserAgentValueCaseInsensitive", uaCamel, "Foo", "http://foo.bar/a/b", false},
	{"ID_UserAgentValueCaseInsensitive", uaUpper, "foo", "http://foo.bar/x/y", true},
	{"ID_UserAgentValueCaseInsensitive", uaLower, "foo", "http://foo.bar/x/y", true},
	{"ID_UserAgentValueCaseInsensitive", uaCamel, "foo", "http://foo.bar/x/y", true},
	{"ID_UserAgentValueCaseInsensitive", uaUpper, "foo", "http://foo.bar/a/b", false},
	{"ID_UserAgentValueCaseInsensitive", uaLower, "foo", "http://foo.bar/a/b", false},
	{"ID_UserAgentValueCaseInsensitive", uaCamel, "foo", "http://foo.bar/a/b", false},

	{"ID_GlobalGroups_Secondary", "", "FooBot", "http://foo.bar/x/y", true},
	{"ID_GlobalGroups_Secondary", globalTxt, "FooBot", "http://foo.bar/x/y", false},
	{"ID_GlobalGroups_Secondary", globalTxt, "BarBot", "http://foo.bar/x/y", true},
	{"ID_GlobalGroups_Secondary", specTxt, "QuxBot", "http://foo.bar/x/y", true},

	{"ID_AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/y", false},
	{"ID_AllowDisallow_Value_CaseSensitive", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", "http://foo.bar/x/y", true},

	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", "http://foo.bar/x/page.html", false},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/page.html", true},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/", false},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", "http://foo.bar/x/page.html", true},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", "http://foo.bar/x/page.html", true},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x", false},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x/", true},
	{"ID_LongestMatch", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", "http://foo.bar/x/page.html", true},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page.html", false},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page", true},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/page.html", true},
	{"ID_LongestMatch", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/y.html", false},
	{"ID_LongestMatch", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/x/page", true},
	{"ID_LongestMatch", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/y/page", false},

	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/ツ", false},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/ツ", false},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/baz", false},
	{"ID_Encoding", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/%62%61%7A", true},

	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/bar/quz", false},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/quz", true},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo//quz", true},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/bax/quz", true},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar", false},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/qux", true},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/", true},
	{"ID_SpecialCharacters", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/baz", true},
	{"ID_SpecialCharacters", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/bar", true},
	{"ID_SpecialCharacters", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/quz", false},
}

// requestTarget returns the path and query of a test URL, as the reference
// suite's harness extracts them: what follows scheme://host, without the
// fragment; "/" when empty.
func requestTarget(u string) string {
	if i := strings.Index(u, "//"); i >= 0 {
		u = u[i+2:]
		if j := strings.IndexAny(u, "/?"); j >= 0 {
			u = u[j:]
		} else {
			u = ""
		}
	}
	u, _, _ = strings.Cut(u, "#")
	if u == "" || u[0] == '?' {
		u = "/" + u
	}
	return u
}

func runCases(t *testing.T, cases []conformanceCase) (passed int) {
	t.Helper()
	for i, c := range cases {
		got := Parse([]byte(c.robots)).Allowed(c.agent, requestTarget(c.url))
		if got == c.want {
			passed++
			continue
		}
		t.Errorf("%s #%d: agent %q url %q: allowed %v, want %v\nrobots.txt:\n%s", c.test, i, c.agent, c.url, got, c.want, c.robots)
	}
	return passed
}

func TestConformanceRFC(t *testing.T) {
	n := runCases(t, rfcCases)
	t.Logf("RFC assertions of robots_test.cc: %d of %d pass", n, len(rfcCases))
}

// TestValidToken ports ID_VerifyValidUserAgentsToObey.
func TestValidToken(t *testing.T) {
	for tok, want := range map[string]bool{
		"Foobot": true, "Foobot-Bar": true, "Foo_Bar": true,
		"": false, "ツ": false, "Foobot*": false, " Foobot ": false, "Foobot/2.1": false, "Foobot Bar": false,
	} {
		if got := ValidToken(tok); got != want {
			t.Errorf("ValidToken(%q) = %v, want %v", tok, got, want)
		}
	}
}
