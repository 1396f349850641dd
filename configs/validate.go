package configs

import (
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"

	"errors"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Validate checks every field of c, including that at least one seed is
// given, and returns all problems joined with errors.Join (nil if none).
// Each problem is an *Error naming the field, without a file or line, since
// after command-line overrides a value need not come from the file:
// "configs: scope.max_depth: must be >= 0".
func (c *Config) Validate() error {
	errs := c.check(true)
	if len(errs) == 0 {
		return nil
	}
	return join(errs)
}

// check returns every problem with c, field paths only.
func (c *Config) check(requireSeeds bool) []*Error {
	var errs []*Error
	bad := func(field, format string, a ...any) {
		if len(errs) < maxErrors {
			errs = append(errs, &Error{Field: field, Msg: fmt.Sprintf(format, a...)})
		}
	}
	c.checkSeeds(bad, requireSeeds)
	c.Scope.check(bad)
	c.Politeness.check(bad)
	c.Fetch.check(bad)
	c.Dedup.check(bad)
	c.Recrawl.check(bad)
	c.Store.check(bad)
	return errs
}

// badFunc records one problem of a field.
type badFunc func(field, format string, a ...any)

// checkSeeds checks the seeds: absolute http(s) URLs no longer than scope.max_url_length.
func (c *Config) checkSeeds(bad badFunc, requireSeeds bool) {
	if requireSeeds && len(c.Seeds) == 0 {
		bad("seeds", "at least one seed URL is required")
	}
	checkURLs(bad, "seeds", c.Seeds, c.Scope.MaxURLLength)
}

// checkURLs checks a list of absolute http(s) URLs no longer than maxLen.
func checkURLs(bad badFunc, field string, urls []string, maxLen int) {
	for i, u := range urls {
		if msg := checkURLLength(u, maxLen); msg != "" {
			bad(fmt.Sprintf("%s[%d]", field, i), "%s", msg)
		} else if err := checkSeed(u); err != "" {
			bad(fmt.Sprintf("%s[%d]", field, i), "%q %s", u, err)
		}
	}
}

// checkHosts checks a list of host names.
func checkHosts(bad badFunc, field string, hosts []string) {
	for i, h := range hosts {
		if msg := checkHost(h); msg != "" {
			bad(fmt.Sprintf("%s[%d]", field, i), "%q %s", h, msg)
		}
	}
}

// checkRegexps checks a list of RE2 regular expressions.
func checkRegexps(bad badFunc, field string, res []string) {
	for i, re := range res {
		if _, err := regexp.Compile(re); err != nil {
			bad(fmt.Sprintf("%s[%d]", field, i), "invalid regexp %q: %s", re, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	}
}

// check checks the scope section.
func (s *Scope) check(bad badFunc) {
	checkHosts(bad, "scope.allowed_hosts", s.AllowedHosts)
	checkHosts(bad, "scope.denied_hosts", s.DeniedHosts)
	checkRegexps(bad, "scope.include", s.Include)
	checkRegexps(bad, "scope.exclude", s.Exclude)
	if s.MaxDepth < 0 {
		bad("scope.max_depth", "must be >= 0")
	}
	if s.MaxPages < 0 {
		bad("scope.max_pages", "must be >= 0 (0 = unlimited)")
	}
	if s.MaxPagesPerHost < 0 {
		bad("scope.max_pages_per_host", "must be >= 0 (0 = unlimited)")
	}
	if s.MaxURLLength <= 0 {
		bad("scope.max_url_length", "must be > 0")
	} else if s.MaxURLLength > storage.MaxURLBytes {
		bad("scope.max_url_length", "%d is more than the store accepts (%d bytes)", s.MaxURLLength, storage.MaxURLBytes)
	}
	if s.Sitemaps.Off && len(s.Sitemaps.URLs) > 0 {
		bad("scope.sitemaps", "off and a list of URLs at once")
	}
	checkURLs(bad, "scope.sitemaps", s.Sitemaps.URLs, s.MaxURLLength)
}

// check checks the politeness section.
func (p *Politeness) check(bad badFunc) {
	if p.Delay < 0 {
		bad("politeness.delay", "must be >= 0")
	}
	if p.MaxCrawlDelay < 0 {
		bad("politeness.max_crawl_delay", "must be >= 0 (0 ignores Crawl-delay)")
	}
	if p.PerHostParallelism < 1 {
		bad("politeness.per_host_parallelism", "must be >= 1")
	}
	if p.Concurrency < 1 {
		bad("politeness.concurrency", "must be >= 1")
	}
	if p.MaxDelay <= 0 {
		bad("politeness.max_delay", "must be > 0")
	} else if p.MaxDelay < p.Delay {
		bad("politeness.max_delay", "must be >= politeness.delay (%s)", p.Delay)
	}
	if p.HostFailures < 0 {
		bad("politeness.host_failures", "must be >= 0 (0 = never set a host aside)")
	}
	if strings.TrimSpace(p.UserAgent) == "" {
		bad("politeness.user_agent", "must not be empty")
	} else if strings.ContainsFunc(p.UserAgent, unicode.IsControl) {
		bad("politeness.user_agent", "must not contain control characters")
	}
}

// check checks the fetch section.
func (f *Fetch) check(bad badFunc) {
	if f.Timeout <= 0 {
		bad("fetch.timeout", "must be > 0")
	}
	if f.MaxBodyBytes <= 0 {
		bad("fetch.max_body_bytes", "must be > 0")
	}
	if len(f.ContentTypes) == 0 {
		bad("fetch.content_types", "must list at least one media type (e.g. text/html)")
	}
	for i, ct := range f.ContentTypes {
		if !isMediaType(ct) {
			bad(fmt.Sprintf("fetch.content_types[%d]", i), "%q is not a media type (want e.g. \"text/html\")", ct)
		}
	}
	if f.MaxRedirects < 0 {
		bad("fetch.max_redirects", "must be >= 0")
	}
	if f.Retries < 0 || f.Retries > 10 {
		bad("fetch.retries", "must be between 0 and 10")
	}
	f.checkAccess(bad)
	f.checkRender(bad)
}

// renderModes are the values of fetch.render and render_rules[].render.
var renderModes = []string{"never", "auto", "always"}

// checkRender checks the rendering keys of the fetch section.
func (f *Fetch) checkRender(bad badFunc) {
	if !slices.Contains(renderModes, f.Render) {
		bad("fetch.render", "%q is not a render mode (never, auto or always)", f.Render)
	}
	for i, r := range f.RenderRules {
		if _, err := regexp.Compile(r.Match); err != nil || r.Match == "" {
			msg := "is required"
			if err != nil {
				msg = strings.TrimPrefix(err.Error(), "error parsing regexp: ")
			}
			bad(fmt.Sprintf("fetch.render_rules[%d].match", i), "invalid regexp %q: %s", r.Match, msg)
		}
		if !slices.Contains(renderModes, r.Render) {
			bad(fmt.Sprintf("fetch.render_rules[%d].render", i), "%q is not a render mode (never, auto or always)", r.Render)
		}
	}
	if f.RenderConcurrency < 0 || f.RenderConcurrency > 64 {
		bad("fetch.render_concurrency", "must be between 0 (half the cores) and 64")
	}
	if f.RenderTimeout <= 0 {
		bad("fetch.render_timeout", "must be > 0")
	}
	if f.RenderScroll < 0 || f.RenderScroll > 50 {
		bad("fetch.render_scroll", "must be between 0 and 50")
	}
}

// check checks the dedup section.
func (d *Dedup) check(bad badFunc) {
	if d.Filter != "" && !slices.Contains(FilterVariants, d.Filter) {
		bad("dedup.filter", "unknown filter %q (want one of %s)", d.Filter, strings.Join(FilterVariants, ", "))
	}
	if d.Capacity < 1 {
		bad("dedup.capacity", "must be >= 1")
	}
	if !(d.TargetFP > 0 && d.TargetFP < 0.5) {
		bad("dedup.target_fp", "must be in (0, 0.5), got %v", d.TargetFP)
	}
	if d.RecrawlWindow < 0 {
		bad("dedup.recrawl_window", "must be >= 0 (0 = never recrawl)")
	} else if d.Filter == "chain" && d.RecrawlWindow == 0 {
		bad("dedup.filter", "the chain filter forgets URLs after dedup.recrawl_window, which must then be > 0")
	} else if d.Filter != "chain" && d.RecrawlWindow > 0 {
		bad("dedup.recrawl_window", "not supported with dedup.filter %q (only the chain filter uses it: how long it remembers a URL); to fetch pages again use recrawl.rules", d.Filter)
	}
	if d.VerifyCacheBytes < 0 {
		bad("dedup.verify_cache_bytes", "must be >= 0 (0 = no cache)")
	}
	if d.SimHashThreshold < 0 || d.SimHashThreshold > contentdedup.MaxThreshold {
		bad("dedup.simhash_threshold", "must be between 0 and %d", contentdedup.MaxThreshold)
	}
}

// check checks the recrawl section.
func (r *Recrawl) check(bad badFunc) {
	if r.SeedsEvery < 0 {
		bad("recrawl.seeds_every", "must be >= 0 (0 = never)")
	}
	for i, rule := range r.Rules {
		if _, err := regexp.Compile(rule.Match); err != nil || rule.Match == "" {
			msg := "must not be empty"
			if err != nil {
				msg = strings.TrimPrefix(err.Error(), "error parsing regexp: ")
			}
			bad(fmt.Sprintf("recrawl.rules[%d].match", i), "invalid regexp %q: %s", rule.Match, msg)
		}
		if rule.Every <= 0 {
			bad(fmt.Sprintf("recrawl.rules[%d].every", i), "must be > 0, got %v", rule.Every)
		}
	}
	if r.KeepVersions < 1 {
		bad("recrawl.keep_versions", "must be >= 1 (1 = the latest version only), got %d", r.KeepVersions)
	}
	if !r.Continuous && (r.SeedsEvery > 0 || len(r.Rules) > 0 || r.KeepVersions >= 1 && r.KeepVersions != DefaultKeepVersions) {
		field, msg := "recrawl.rules", "refreshes need"
		switch {
		case r.SeedsEvery > 0:
			field = "recrawl.seeds_every"
		case len(r.Rules) == 0:
			field, msg = "recrawl.keep_versions", "versions come from refreshes, which need"
		}
		bad(field, "%s a continuous crawl: set recrawl.continuous: true (or crawl --continuous)", msg)
	}
}

// check checks the store section.
func (st *Store) check(bad badFunc) {
	if strings.TrimSpace(st.Dir) == "" {
		bad("store.dir", "must not be empty")
	}
	if st.Compression != "" && !slices.Contains(Compressions, st.Compression) {
		bad("store.compression", "unknown level %q (want one of %s)", st.Compression, strings.Join(Compressions, ", "))
	}
	if st.MinFreeBytes < -1 {
		bad("store.min_free_bytes", "must be >= 0 (0 = automatic) or -1 (off), got %d", st.MinFreeBytes)
	}
	if st.WARCMaxBytes < 0 {
		bad("store.warc_max_bytes", "must be >= 0 (0 = 1 GB)")
	}
}

// checkSeed returns why s is not an absolute http(s) URL, or "".
func checkSeed(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "is not a valid URL: " + err.Error()
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return "is not an absolute http(s) URL"
	}
	if u.Hostname() == "" {
		return "has no host"
	}
	return ""
}

// checkURLLength returns why u is too long to crawl, or "": longer than
// scope.max_url_length (max; not checked when max is not positive), or
// than the store accepts. The URL is shown by its start only.
func checkURLLength(u string, max int) string {
	limit, what := max, "scope.max_url_length"
	if limit <= 0 || limit > storage.MaxURLBytes {
		limit, what = storage.MaxURLBytes, "the store's limit"
	}
	if len(u) <= limit {
		return ""
	}
	return fmt.Sprintf("%.60q... is %d bytes, longer than %s (%d)", u, len(u), what, limit)
}

// checkHost returns why h is not a host name (optionally host:port), or
// "". Package urlfilter checks the name itself when the crawl starts.
func checkHost(h string) string {
	switch {
	case h == "":
		return "is empty"
	case strings.Contains(h, "://") || strings.Contains(h, "/"):
		return "must be a host name, not a URL"
	case strings.ContainsFunc(h, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return "must not contain spaces"
	}
	return ""
}

// isMediaType reports whether s is "type/subtype" (parameters allowed).
func isMediaType(s string) bool {
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		return false
	}
	typ, sub, ok := strings.Cut(mt, "/")
	return ok && typ != "" && sub != ""
}
