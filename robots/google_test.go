package robots

import (
	"strings"
	"testing"
)

// googleCases are the IsUserAgentAllowed assertions of the GoogleOnly_*
// tests of robots_test.cc (see conformance_test.go): behaviour of Google's
// crawler beyond RFC 9309. TestConformanceGoogle reports how many pass
// (72 of 73: not the index.html-is-the-directory rule) and fails if fewer do.
func googleCases() []conformanceCase {
	const fishTxt = "user-agent: FooBot\ndisallow: /\nallow: /fish\n"
	const fishStar = "user-agent: FooBot\ndisallow: /\nallow: /fish*\n"
	const fishSlash = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n"
	const php = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n"
	const phpEnd = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n"
	const fishPhp = "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n"
	const index = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n"
	const space = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
	const fooSlash = "user-agent: FooBot\ndisallow: /\n"
	cases := []conformanceCase{
		{"GoogleOnly_SystemTest", "", "FooBot", "", true},
		{"GoogleOnly_SystemTest", fooSlash, "", "", true},
		{"GoogleOnly_SystemTest", fooSlash, "FooBot", "", false},
		{"GoogleOnly_SystemTest", "", "", "", true},
		{"GoogleOnly_AcceptUserAgentUpToFirstSpace", space, "Foo", "http://foo.bar/x/y", true},
		{"GoogleOnly_AcceptUserAgentUpToFirstSpace", space, "Foo Bar", "http://foo.bar/x/y", false},
		{"GoogleOnly_IndexHTMLisDirectory", index, "foobot", "http://foo.com/allowed-slash/", true},
		{"GoogleOnly_IndexHTMLisDirectory", index, "foobot", "http://foo.com/allowed-slash/index.htm", false},
		{"GoogleOnly_IndexHTMLisDirectory", index, "foobot", "http://foo.com/allowed-slash/index.html", true},
		{"GoogleOnly_IndexHTMLisDirectory", index, "foobot", "http://foo.com/anyother-url", false},
	}
	doc := func(robots string, want bool, paths ...string) {
		for _, p := range paths {
			cases = append(cases, conformanceCase{"GoogleOnly_DocumentationChecks", robots, "FooBot", "http://foo.bar" + p, want})
		}
	}
	doc(fishTxt, false, "/bar")
	doc(fishTxt, true, "/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.html?id=anything")
	doc(fishTxt, false, "/Fish.asp", "/catfish", "/?id=fish")
	doc(fishStar, false, "/bar")
	doc(fishStar, true, "/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.html?id=anything")
	doc(fishStar, false, "/Fish.bar", "/catfish", "/?id=fish")
	doc(fishSlash, false, "/bar")
	doc(fishSlash, true, "/fish/", "/fish/salmon", "/fish/?salmon", "/fish/salmon.html", "/fish/?id=anything")
	doc(fishSlash, false, "/fish", "/fish.html", "/Fish/Salmon.html")
	doc(php, false, "/bar")
	doc(php, true, "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "//folder/any.php.file.html", "/filename.php/", "/index?f=filename.php/")
	doc(php, false, "/php/", "/index?php", "/windows.PHP")
	doc(phpEnd, false, "/bar")
	doc(phpEnd, true, "/filename.php", "/folder/filename.php")
	doc(phpEnd, false, "/filename.php?parameters", "/filename.php/", "/filename.php5", "/php/", "/filename?php", "/aaaphpaaa", "//windows.PHP")
	doc(fishPhp, false, "/bar")
	doc(fishPhp, true, "/fish.php", "/fishheads/catfish.php?parameters")
	doc(fishPhp, false, "/Fish.PHP")
	doc("user-agent: FooBot\nallow: /p\ndisallow: /\n", true, "/page")
	doc("user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", true, "/folder/page")
	doc("user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", false, "/page.htm")
	doc("user-agent: FooBot\nallow: /$\ndisallow: /\n", true, "/")
	doc("user-agent: FooBot\nallow: /$\ndisallow: /\n", false, "/page.html")

	// GoogleOnly_LineTooLong: lines are cut after 8 × 2083 bytes.
	const maxLine = 2083 * 8
	long := "/x/" + strings.Repeat("a", maxLine-len("/x/")-len("disallow: ")+1-len("/x/"))
	txt := "user-agent: FooBot\ndisallow: " + long + "/qux\n"
	cases = append(cases,
		conformanceCase{"GoogleOnly_LineTooLong", txt, "FooBot", "http://foo.bar/fux", true},
		conformanceCase{"GoogleOnly_LineTooLong", txt, "FooBot", "http://foo.bar" + long + "/fux", false})
	n := maxLine - len("/x/") - len("allow: ") + 1 - len("/x/")
	la, lb := "/x/"+strings.Repeat("a", n), "/x/"+strings.Repeat("b", n)
	txt = "user-agent: FooBot\ndisallow: /\nallow: " + la + "/qux\nallow: " + lb + "/qux\n"
	cases = append(cases,
		conformanceCase{"GoogleOnly_LineTooLong", txt, "FooBot", "http://foo.bar/", false},
		conformanceCase{"GoogleOnly_LineTooLong", txt, "FooBot", "http://foo.bar" + la + "/qux", true},
		conformanceCase{"GoogleOnly_LineTooLong", txt, "FooBot", "http://foo.bar" + lb + "/fux", true})
	return cases
}

func TestConformanceGoogle(t *testing.T) {
	cases := googleCases()
	passed := 0
	for i, c := range cases {
		if Parse([]byte(c.robots)).Allowed(c.agent, requestTarget(c.url)) == c.want {
			passed++
			continue
		}
		u := c.url
		if len(u) > 60 {
			u = u[:60] + "…"
		}
		t.Logf("not passed: %s #%d agent %q url %q want %v", c.test, i, c.agent, u, c.want)
	}
	t.Logf("Google-specific assertions of robots_test.cc: %d of %d pass", passed, len(cases))
	if passed < len(cases)-1 {
		t.Errorf("%d Google-specific assertions pass, %d before", passed, len(cases)-1)
	}
}
