package robots

import "testing"

// TestLineEndingsAndBOM ports, as behaviour, the parser tests of
// robots_test.cc that count directives through a parse handler
// (ID_LinesNumbersAreCountedCorrectly, ID_UTF8ByteOrderMarkIsSkipped,
// ID_NonStandardLineExample_Sitemap): every line ending is a line ending,
// a (partial) UTF-8 byte order mark at the start is skipped, and a broken
// one, or one elsewhere, spoils its line only.
func TestLineEndingsAndBOM(t *testing.T) {
	for name, body := range map[string]string{
		"unix":       "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"dos":        "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"mac":        "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no final":   "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed":      "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
		"full BOM":   "\xEF\xBB\xBFUser-Agent: foo\nAllow: /some/path\nUser-Agent: bar\nDisallow: /\n",
		"BOM 2 of 3": "\xEF\xBBUser-Agent: foo\nAllow: /some/path\nUser-Agent: bar\nDisallow: /\n",
		"BOM 1 of 3": "\xEFUser-Agent: foo\nAllow: /some/path\nUser-Agent: bar\nDisallow: /\n",
	} {
		r := Parse([]byte(body))
		if !r.Allowed("foo", "/some/path") || r.Allowed("bar", "/x") || !r.Allowed("baz", "/x") {
			t.Errorf("%s: groups foo and bar not both read", name)
		}
	}
	// A broken BOM spoils the first line: no group for foo.
	r := Parse([]byte("\xEF\x11\xBFUser-Agent: foo\nDisallow: /AnyValue\n"))
	if !r.Allowed("foo", "/AnyValue") {
		t.Error("broken BOM: the first line was read")
	}
	// A BOM elsewhere spoils its line.
	r = Parse([]byte("User-Agent: foo\n\xEF\xBB\xBFDisallow: /AnyValue\n"))
	if !r.Allowed("foo", "/AnyValue") {
		t.Error("BOM inside the file: its line was read")
	}
	for _, body := range []string{
		"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nSitemap: http://foo.bar/sitemap.xml\n",
		"Sitemap: http://foo.bar/sitemap.xml\nUser-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n",
	} {
		if s := Parse([]byte(body)).Sitemaps; len(s) != 1 || s[0] != "http://foo.bar/sitemap.xml" {
			t.Errorf("sitemaps %q of %q", s, body)
		}
	}
}
