package crawler

import (
	"net/url"
)

// checkLink is scope.Check for a link found on page from. A link longer
// than scope.max_url_length (at most what the store accepts) is not
// followed, and is logged (Info) with its length and start: it more
// likely comes from a broken page or a trap than from a URL out of scope.
func (c *Crawler) checkLink(from string, u *url.URL) error {
	err := c.scope.Check(u)
	if s := u.String(); err != nil && len(s) > c.settings.Scope.MaxURLLength {
		c.log.Info("link longer than scope.max_url_length; not followed", "page", from,
			"bytes", len(s), "max_url_length", c.settings.Scope.MaxURLLength, "url", s[:80]+"…")
	}
	return err
}
