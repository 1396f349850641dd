package robots

import "testing"

// refMatch is a reference for match: the set of path positions the
// pattern's prefix can reach, advanced one pattern byte at a time (the
// algorithm of Google's reference implementation, written from its
// description: "*" reaches every later position, a final "$" needs the end).
func refMatch(pattern, path string) bool {
	reach := []int{0}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '$' && i == len(pattern)-1 {
			for _, p := range reach {
				if p == len(path) {
					return true
				}
			}
			return false
		}
		var next []int
		if c == '*' {
			for p := reach[0]; p <= len(path); p++ {
				next = append(next, p)
			}
		} else {
			for _, p := range reach {
				if p < len(path) && path[p] == c {
					next = append(next, p+1)
				}
			}
		}
		if len(next) == 0 {
			return false
		}
		reach = next
	}
	return true
}

// FuzzMatch checks match against refMatch, and that Parse and Allowed take
// any input.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"/fish*.php", "/fishheads/catfish.php?parameters"}, {"/*.php$", "/filename.php5"},
		{"/foo/bar$", "/foo/bar"}, {"/a$b", "/a$b"}, {"*", ""}, {"/**x*$", "/yx"}, {"$", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if got, want := match(pattern, path), refMatch(pattern, path); got != want {
			t.Fatalf("match(%q, %q) = %v, reference %v", pattern, path, got, want)
		}
		r := Parse([]byte("user-agent: *\n" + pattern + "\nallow: " + pattern + "\ndisallow: " + path + "\n"))
		r.Allowed("bot", path)
		r.CrawlDelay("bot")
	})
}
