// Package robots parses robots.txt files and answers whether a crawler may
// fetch a URL, as RFC 9309 (the Robots Exclusion Protocol) specifies.
//
// # Basics
//
// Parse reads a robots.txt body into Rules; it never fails: lines it does not
// understand, and rules outside any group, are ignored (§2.1). Rules.Allowed
// takes the crawler's product token ("bloomcrawl", not the whole User-Agent
// string) and the request target of the URL (path and query, as sent on the
// wire, "/a/b?c=d"):
//
//	rules := robots.Parse(body)
//	ok := rules.Allowed("bloomcrawl", u.RequestURI())
//
// What the package implements, by RFC 9309 section:
//
//   - §2.1 groups: one or more user-agent lines followed by rules; the
//     next user-agent line after a rule (or a crawl-delay) starts a new
//     group; other lines (sitemap, unknown ones) do not end the list of
//     user-agents; rules before any user-agent line are ignored;
//     field names are case-insensitive; a missing colon is accepted when the
//     line is two words ("disallow /", as Google does).
//   - §2.2.1 user-agent: the product token is compared case-insensitively
//     with the line's value up to its first character outside [A-Za-z_-]
//     ("FooBot" applies to the token "foobot", not to "foobot2", and a group
//     "Foo" does not apply to "FooBot"); every group naming the token is
//     obeyed (combined); else every "*" group; else everything is allowed.
//   - §2.2.2 allow and disallow: the longest matching rule wins, its length
//     counted on the rule as written (percent-encoded, with its * and $);
//     on a tie allow wins; an empty rule matches nothing. Octets outside
//     ASCII in a rule are percent-encoded and every escape is compared with
//     upper-case hex, in rules and in the path alike.
//   - §2.2.3 special characters: "*" matches any sequence, a final "$"
//     anchors the end, "#" starts a comment anywhere on a line.
//   - §2.5 limits: Parse reads whatever it is given; the crawler hands it the
//     first 512 KiB (MaxBytes). Lines longer than 16,665 bytes are cut there
//     (as Google's parser does).
//
// Crawl-delay (not in RFC 9309, widely used) is read per group
// (Rules.CrawlDelay), and Sitemap lines anywhere in the file
// (Rules.Sitemaps).
//
// # Caveats
//
// Allowed compares strings: a URL whose path percent-encodes an unreserved
// character ("/%62%61%7A") does not match a rule that spells it ("/baz"),
// and the other way round, as in Google's reference implementation. Pass
// the path exactly as the request will send it.
package robots
