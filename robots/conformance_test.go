package robots

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The conformance cases are the IsUserAgentAllowed assertions of Google's
// robots.txt reference library, github.com/google/robotstxt, file
// robots_test.cc (commit 22b355f), the implementation RFC 9309 was written
// from. testdata/rfc9309_cases.json holds those of its tests about RFC
// behaviour (named ID_*); googleCases those of its Google-specific tests (GoogleOnly_*), which the
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

// loadRFCCases reads testdata/rfc9309_cases.json, the RFC assertions of
// robots_test.cc as data (the crawler's end-to-end test reads it too).
func loadRFCCases(t *testing.T) []conformanceCase {
	t.Helper()
	b, err := os.ReadFile("testdata/rfc9309_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Test, Robots, Agent, URL string
		Allowed                  bool
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	cases := make([]conformanceCase, len(raw))
	for i, r := range raw {
		cases[i] = conformanceCase{r.Test, r.Robots, r.Agent, r.URL, r.Allowed}
	}
	return cases
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
	cases := loadRFCCases(t)
	n := runCases(t, cases)
	t.Logf("RFC assertions of robots_test.cc: %d of %d pass", n, len(cases))
	if len(cases) != 72 {
		t.Errorf("%d RFC assertions in testdata, want the suite's 72", len(cases))
	}
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
