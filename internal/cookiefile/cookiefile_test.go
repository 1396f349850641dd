package cookiefile

import (
	"strings"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	in := "# Netscape HTTP Cookie File\n" +
		"\n" +
		".example.com\tTRUE\t/\tFALSE\t2000000000\tsid\tabc123\n" +
		"#HttpOnly_docs.example.com\tFALSE\t/app\tTRUE\t0\ttoken\tx=y\r\n"
	cs, err := Read("cookies.txt", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("%d cookies, want 2", len(cs))
	}
	a, b := cs[0], cs[1]
	if a.Name != "sid" || a.Value != "abc123" || a.Domain != "example.com" || !a.Subdomains || a.Path != "/" || a.Secure ||
		!a.Expires.Equal(time.Unix(2000000000, 0)) || a.Line != 3 {
		t.Errorf("first cookie %+v", a)
	}
	if b.Name != "token" || b.Value != "x=y" || b.Domain != "docs.example.com" || b.Subdomains || b.Path != "/app" || !b.Secure ||
		!b.HttpOnly || !b.Expires.IsZero() || b.Line != 4 {
		t.Errorf("second cookie %+v", b)
	}
	for _, tc := range []struct{ in, want string }{
		{"example.com\tTRUE\t/\tFALSE\t0\tsid\n", "cookies.txt:1: want 7 tab-separated fields"},
		{"# c\nexample.com\tyes\t/\tFALSE\t0\tsid\tv\n", "cookies.txt:2: include-subdomains: \"yes\" is neither TRUE nor FALSE"},
		{"example.com\tTRUE\t/\tFALSE\tsoon\tsid\tv\n", "cookies.txt:1: expires \"soon\" is not a Unix time"},
		{"example.com\tTRUE\tapp\tFALSE\t0\tsid\tv\n", "cookies.txt:1: path \"app\" does not start with /"},
		{"\tTRUE\t/\tFALSE\t0\tsid\tv\n", "cookies.txt:1: bad domain"},
		{"example.com\tTRUE\t/\tFALSE\t0\t\tv\n", "cookies.txt:1: empty cookie name"},
	} {
		_, err := Read("cookies.txt", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}
