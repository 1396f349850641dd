package configs

import (
	"bytes"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// Default values, as Default fills them in. The dedup defaults are the
// component packages' own (urlfilter, contentdedup, frontier): they live
// there once.
const (
	DefaultMaxDepth           = 50
	DefaultMaxURLLength       = 2048
	DefaultPerHostParallelism = 2
	DefaultConcurrency        = 16
	DefaultUserAgent          = "bloomcrawl/0.1 (+https://github.com/bloomcrawl/bloomcrawl)"
	DefaultTimeout            = Duration(30e9) // 30s
	DefaultMaxBodyBytes       = 10 << 20       // 10 MiB
	DefaultMaxRedirects       = 10
	DefaultRetries            = 2
	DefaultFilter             = urlfilter.VariantDefault
	DefaultCapacity           = urlfilter.DefaultCapacity
	DefaultTargetFP           = urlfilter.DefaultTargetFP
	DefaultSimHashThreshold   = contentdedup.DefaultThreshold
	DefaultKeepVersions       = 3
	DefaultVerifyCacheBytes   = frontier.DefaultRecentBytes // 128 MiB
	DefaultStoreDir           = "./crawl.db"
	DefaultMaxCrawlDelay      = Duration(30e9) // 30s
	DefaultMaxDelay           = Duration(60e9) // 60s
	DefaultHostFailures       = 10
	DefaultRender             = "never"
	DefaultRenderTimeout      = Duration(15e9) // 15s
)

// DefaultContentTypes is the default of Fetch.ContentTypes. Default copies
// it, so changing a Config never changes this slice.
var DefaultContentTypes = []string{"text/html", "application/xhtml+xml"}

// FilterVariants lists the values dedup.filter accepts: "default" and the
// URL filter variants of package urlfilter (urlfilter.Variants). "" is read
// as "default".
var FilterVariants = append([]string{urlfilter.VariantDefault}, urlfilter.Variants...)

// Config is one crawl's configuration. The zero value is not useful; start
// from Default, Parse or Load. A Config is plain data: safe for concurrent
// reads, not for concurrent writes.
type Config struct {
	// Seeds are the absolute http(s) URLs the crawl starts from. Default
	// none; Validate requires at least one (Parse does not, since the crawl
	// command's --seed flag can supply them).
	Seeds []string `yaml:"seeds"`
	// Scope limits which URLs are crawled.
	Scope Scope `yaml:"scope"`
	// Politeness limits how hard each host is hit.
	Politeness Politeness `yaml:"politeness"`
	// Fetch limits each HTTP request.
	Fetch Fetch `yaml:"fetch"`
	// Dedup configures URL and content deduplication.
	Dedup Dedup `yaml:"dedup"`
	// Store says where pages are kept.
	Store Store `yaml:"store"`
	// Recrawl makes the crawl continuous: pages fetched again on a schedule.
	Recrawl Recrawl `yaml:"recrawl"`

	// lines maps a field path ("scope.max_depth", "seeds[1]") to the line it
	// was read from; nil for a Config that did not come from a file.
	lines map[string]int
	// name is the file name Parse was given.
	name string
}

// Scope limits which URLs are crawled.
type Scope struct {
	// AllowedHosts are the hosts that may be crawled, with their subdomains
	// ("example.com" allows "docs.example.com"). Default empty, which means
	// the seeds' hosts. Entries are host names, not URLs; a ":port" suffix
	// is accepted and ignored (scope is by host).
	AllowedHosts []string `yaml:"allowed_hosts"`
	// DeniedHosts are never crawled, with their subdomains, even when
	// allowed. Default empty.
	DeniedHosts []string `yaml:"denied_hosts"`
	// Include are regular expressions (Go RE2 syntax) matched against the
	// canonical URL; when non-empty, a URL must match at least one. Default
	// empty (everything in the allowed hosts).
	Include []string `yaml:"include"`
	// Exclude are regular expressions matched against the canonical URL; a
	// URL matching any of them is not crawled (use them as trap rules).
	// Default empty.
	Exclude []string `yaml:"exclude"`
	// MaxDepth is the number of links followed from a seed. Default 50;
	// 0 fetches the seeds only; must be >= 0.
	MaxDepth int `yaml:"max_depth"`
	// MaxPages stops the crawl after this many fetched pages. Default 0,
	// unlimited; must be >= 0.
	MaxPages int `yaml:"max_pages"`
	// MaxPagesPerHost stops crawling a host after this many fetched pages.
	// Default 0, unlimited; must be >= 0.
	MaxPagesPerHost int `yaml:"max_pages_per_host"`
	// MaxURLLength skips URLs longer than this many bytes; a seed or
	// sitemap URL longer fails validation. Default 2048; must be > 0 and
	// at most storage.MaxURLBytes (16384), the longest URL the store
	// accepts.
	MaxURLLength int `yaml:"max_url_length"`
	// Sitemaps says which sitemaps are read: "auto" (the default: the
	// Sitemap: lines of each seed host's robots.txt and its /sitemap.xml,
	// which leaves no record when missing), "off", or a list of sitemap
	// URLs (which
	// must be absolute http(s) URLs). Sitemap index files and gzipped
	// sitemaps are read; the URLs they list go through scope, the
	// canonicalizer and the URL filter like links, at depth 0.
	Sitemaps Sitemaps `yaml:"sitemaps"`
}

// Politeness limits how hard each host is hit.
type Politeness struct {
	// ObeyRobots makes the crawler fetch and obey each host's robots.txt.
	// Default true.
	ObeyRobots bool `yaml:"obey_robots"`
	// Delay is the pause between two requests to the same host. Default 0;
	// must be >= 0.
	Delay Duration `yaml:"delay"`
	// PerHostParallelism is the number of requests in flight to one host.
	// Default 2; must be >= 1.
	PerHostParallelism int `yaml:"per_host_parallelism"`
	// Concurrency is the number of requests in flight overall. Default 16;
	// must be >= 1.
	Concurrency int `yaml:"concurrency"`
	// UserAgent is sent with every request and matched against robots.txt.
	// Default "bloomcrawl/0.1 (+https://github.com/bloomcrawl/bloomcrawl)";
	// must not be empty or contain control characters.
	UserAgent string `yaml:"user_agent"`
	// MaxCrawlDelay caps the Crawl-delay a robots.txt may ask for (for our
	// user agent, or *): a host's Crawl-delay larger than Delay replaces
	// Delay for that host, up to this cap (a larger request is logged and
	// the cap used). Read only with ObeyRobots. Default 30s; must be >= 0
	// (0 ignores Crawl-delay).
	MaxCrawlDelay Duration `yaml:"max_crawl_delay"`
	// ObeyMetaRobots obeys <meta name="robots"> (and a meta named for our
	// user agent's product token) and the X-Robots-Tag header: "nofollow"
	// (or "none"): the page's links are not followed; "noindex" (or
	// "none"): the page is fetched and its links followed but it is not
	// stored (its URL is recorded with reason "noindex"). Default true.
	ObeyMetaRobots bool `yaml:"obey_meta_robots"`
	// FollowNofollowLinks follows links marked rel="nofollow" (and
	// rel="sponsored" or "ugc"). Default false.
	FollowNofollowLinks bool `yaml:"follow_nofollow_links"`
	// Adaptive adapts each host's delay to how it answers: the delay
	// rises (doubles, at least to 250ms) on a 429 or 503 response, whose
	// Retry-After then holds the whole host, and on a connection failure;
	// it moves toward the response time when a host's latency grows to
	// more than twice its usual; it falls back by 5% a success toward
	// Delay (or the robots.txt Crawl-delay), never below 1.2 times the
	// delay a 429 or 503 was last answered at during the 2 minutes after
	// it. Default true; false keeps the fixed delay (requests failing
	// with 429 are still retried after their Retry-After).
	Adaptive bool `yaml:"adaptive"`
	// MaxDelay caps the delay Adaptive sets. Default 60s; must be > 0 and
	// >= Delay.
	MaxDelay Duration `yaml:"max_delay"`
	// HostFailures is how many requests in a row may fail (no response,
	// 429, or 5xx) before a host is set aside: its queued URLs are then
	// recorded as errors (reason "host_failing") without being fetched,
	// so the crawl ends instead of waiting on it. Default 10; 0 never
	// sets a host aside; must be >= 0.
	HostFailures int `yaml:"host_failures"`
}

// Fetch limits each HTTP request.
type Fetch struct {
	// Timeout bounds one request, redirects and body included. Default 30s;
	// must be > 0.
	Timeout Duration `yaml:"timeout"`
	// MaxBodyBytes is the largest response body accepted; a longer one
	// (by Content-Length, or by reading past it) is recorded as an error,
	// never stored truncated. Default 10485760 (10 MiB); must be > 0.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// ContentTypes are the media types that are parsed and stored; other
	// responses are recorded and skipped. Default ["text/html",
	// "application/xhtml+xml"]; must not be empty; each entry is a media
	// type such as "text/html" ("text/*" allowed).
	ContentTypes []string `yaml:"content_types"`
	// MaxRedirects is the longest redirect chain followed. Default 10;
	// 0 follows none; must be >= 0.
	MaxRedirects int `yaml:"max_redirects"`
	// Retries is how many times a request is tried again after a
	// transient network error (refused, reset, timed out, body cut off;
	// not an unknown host or a TLS error) or a 408, 429, 500, 502, 503 or
	// 504 response, waiting 1s, 2s, 4s… or the response's Retry-After (at
	// most 60s, at least politeness.delay). Default 2; must be 0..10.
	Retries int `yaml:"retries"`

	// Proxy is the proxy every request goes through: an http://,
	// https://, socks5:// or socks5h:// URL, with user:password@ if the
	// proxy needs them. Default "": the HTTP_PROXY, HTTPS_PROXY and
	// NO_PROXY environment variables decide (as curl reads them); set,
	// the environment is ignored.
	Proxy string `yaml:"proxy"`
	// NoProxy are the hosts reached without Proxy: a host name (its
	// subdomains too), ".domain" (the subdomains only), or a host glob.
	// Default none. Read with Proxy set (NO_PROXY otherwise).
	NoProxy []string `yaml:"no_proxy"`
	// ProxyRules choose the proxy per host before Proxy and NoProxy: the
	// first rule whose match (a host glob such as "*.example.com"; a
	// pattern with a port matches host:port) matches the request's host
	// gives its proxy, a proxy URL or "direct". Default none.
	ProxyRules []ProxyRule `yaml:"proxy_rules"`
	// Headers are extra request headers, "Name: value", sent to every
	// host (host_rules add per-host ones). Cookie, Authorization and the
	// headers the HTTP client sets are refused. Default none.
	Headers []string `yaml:"headers"`
	// Cookies seed the crawl's cookie jar: Set-Cookie values with their
	// Domain ("session=abc; Domain=example.com; Path=/"). Default none.
	// The jar keeps the cookies sites set, per domain, and is saved in
	// the store, so a resumed crawl keeps its session.
	Cookies []string `yaml:"cookies"`
	// CookiesFile seeds the jar from a Netscape cookies.txt file (as curl
	// and browser extensions export them). Default "".
	CookiesFile string `yaml:"cookies_file"`
	// HostRules add headers and HTTP basic auth to the requests to the
	// hosts they match; a redirect to another host gets none of them.
	// Default none.
	HostRules []HostRule `yaml:"host_rules"`
	// Render says which HTML pages are rendered in a headless Chromium
	// before they are read (docs/rendering.md): "never" (the default),
	// "auto" (the pages whose server HTML shows they are built by scripts,
	// learned per host) or "always". A rendered page's links, text and
	// fingerprints come from its rendered DOM; its server HTML is kept
	// beside it.
	Render string `yaml:"render"`
	// RenderRules set the render mode of the URLs they match; the first
	// rule whose match (RE2, on the canonical URL) matches wins, else
	// Render applies.
	RenderRules []RenderRule `yaml:"render_rules"`
	// BrowserPath is the Chromium executable; "" looks up chromium,
	// chromium-headless-shell, chromium-browser, google-chrome in PATH.
	BrowserPath string `yaml:"browser_path"`
	// RenderConcurrency bounds the pages rendered at once (browser tabs).
	// Default 0: half the cores, at least 1; must be 0..64.
	RenderConcurrency int `yaml:"render_concurrency"`
	// RenderTimeout is each rendered page's time budget, from load to
	// snapshot (a page still busy then is taken as it is). Default 15s;
	// must be > 0.
	RenderTimeout Duration `yaml:"render_timeout"`
	// RenderScroll is how many times a rendered page is scrolled to its
	// bottom to load more, and how many "load more" buttons are clicked.
	// Default 0; must be 0..50.
	RenderScroll int `yaml:"render_scroll"`
	// RenderMedia lets rendered pages load images, media and fonts.
	// Default false: refused without a request.
	RenderMedia bool `yaml:"render_media"`
}

// RenderRule sets the render mode of the URLs Match matches.
type RenderRule struct {
	// Match is an RE2 regexp matched against the canonical URL
	// (unanchored); required.
	Match string `yaml:"match"`
	// Render is the mode: never, auto or always; required.
	Render string `yaml:"render"`
}

// Dedup configures URL and content deduplication.
type Dedup struct {
	// Filter is the URL filter variant, one of FilterVariants.
	// Default "default" (the variant package urlfilter measured best).
	// "chain" remembers URLs for RecrawlWindow only, which must then be > 0.
	Filter string `yaml:"filter"`
	// Capacity is the number of URLs the filter is sized for; it grows past
	// it without saturating. Default 1000000; must be >= 1.
	Capacity uint64 `yaml:"capacity"`
	// TargetFP is the false-positive rate the filter is sized for. Default
	// 0.001; must be in (0, 0.5).
	TargetFP float64 `yaml:"target_fp"`
	// RecrawlWindow is how long the chain filter remembers a URL (a URL
	// rediscovered after that is fetched again); the chain filter needs it
	// > 0, and any other filter 0 (Validate: use Recrawl to fetch pages
	// again on a schedule). Default 0; must be >= 0.
	RecrawlWindow Duration `yaml:"recrawl_window"`
	// SimHashThreshold is the largest Hamming distance between two 64-bit
	// SimHash fingerprints that still counts as a near-duplicate. Default 3;
	// 0 means exact matches only (as every --threshold flag); must be 0..6.
	SimHashThreshold int `yaml:"simhash_threshold"`
	// Verify confirms every "seen" answer of the URL filter before a URL
	// is dropped: against the URLs admitted recently (in memory), then
	// against the store (the URL's record or queue entry, one read batch
	// per page). A URL the store does not know was a false positive of the
	// filter: it is crawled and counted (filter_false_positives), so no
	// page is lost to the filter. Default true; false trusts the filter
	// alone (about dedup.target_fp of the new URLs found after the filter
	// starts to fill are then never fetched). In cluster mode (crawl
	// --cluster) the Redis URL filter's answers are confirmed against an
	// exact set of URLs in Redis instead (cluster.Options.Verify).
	Verify bool `yaml:"verify"`
	// VerifyCacheBytes is the memory in which Verify remembers the URLs
	// admitted or confirmed last, exactly (their bytes are compared), so
	// that links to them need no store read: a URL costs about 19 bytes
	// plus its path (the part after scheme://host:port), so the default
	// holds about 3,200,000 URLs with 20-byte paths. It starts small and
	// grows with the URLs seen up to this size, then stays there (oldest
	// forgotten first). Default 134217728 (128 MiB: a crawl of 2M pages
	// measured 0.87 store reads a page with 32 MiB, with 128 only the
	// 559 of its filter's false positives); 0 keeps none (every "seen"
	// answer not in flight is read from the store); must be >= 0. Not
	// used in cluster mode.
	VerifyCacheBytes int64 `yaml:"verify_cache_bytes"`
}

// Recrawl schedules pages to be fetched again (a continuous crawl).
type Recrawl struct {
	// Continuous keeps the crawl running when its queue is empty, waiting
	// for the next refresh that is due, until it is stopped (Ctrl-C,
	// SIGTERM). Default false: the crawl ends when its queue is empty.
	Continuous bool `yaml:"continuous"`
	// SeedsEvery is how often the seeds are fetched again (crawl --refresh).
	// Default 0: never. Needs Continuous.
	SeedsEvery Duration `yaml:"seeds_every"`
	// Rules say which other pages are fetched again, and how often: the
	// first rule whose Match matches a fetched page's canonical URL
	// schedules it (the seeds follow SeedsEvery first). Default none.
	// Needs Continuous.
	Rules []RecrawlRule `yaml:"rules"`
	// KeepVersions is how many versions of a refreshed page the store
	// keeps, the latest included (>= 1; 1 keeps no history). A refresh
	// whose text is no near-duplicate of the stored version (content
	// dedup's rules and dedup.simhash_threshold) makes a new version and
	// keeps the one it replaces (title and text, not HTML); a
	// near-duplicate edit updates the stored version in place. Default 3
	// (DefaultKeepVersions): the page and the two versions before it. A
	// value other than the default needs Continuous.
	KeepVersions int `yaml:"keep_versions"`
}

// RecrawlRule schedules the pages whose canonical URL matches Match (a Go
// RE2 regular expression, unanchored) to be fetched again Every (> 0).
type RecrawlRule struct {
	Match string   `yaml:"match"`
	Every Duration `yaml:"every"`
}

// Store says where pages are kept.
type Store struct {
	// Dir is the Badger store directory, created if missing. Default
	// "./crawl.db"; must not be empty.
	Dir string `yaml:"dir"`

	// Compression is the zstd level pages' text and HTML are stored with:
	// one of [Compressions]; "" means "fastest", the default (measured: 5%
	// more disk than "default", 20-50% more pages committed per second).
	Compression string `yaml:"compression"`

	// MinFreeBytes is the free space the crawl keeps on the store's
	// filesystem besides what Badger needs to flush its memtables at close
	// (measured as the crawl runs): below the sum, the crawl stops taking
	// URLs, leaves the pages in flight queued, closes the store and exits
	// with status 75, so that Badger never runs out of disk in the middle
	// of a write. 0 (the default) means automatic: 257 MiB, one Badger
	// value-log file (256 MiB) plus 1 MiB (storage.DefaultMinFreeBytes).
	// -1 turns the watch off (not recommended: a full disk then crashes the
	// crawl inside Badger).
	MinFreeBytes int64 `yaml:"min_free_bytes"`

	// WARCDir, if set, receives the crawl's HTTP exchanges as gzipped
	// WARC/1.1 files (package archive): request, response, revisit for
	// byte-identical payloads, metadata for near-duplicates. Created if
	// missing. Default "" (no WARC output); `crawl --warc DIR` sets it.
	WARCDir string `yaml:"warc_dir"`

	// WARCMaxBytes is the size at which a WARC file is closed and the next
	// one started. Default 0, meaning 1 GB (archive.DefaultMaxBytes).
	WARCMaxBytes int64 `yaml:"warc_max_bytes"`

	// WARCSecrets writes the values of the Authorization,
	// Proxy-Authorization and Cookie request fields into the WARC files as
	// they were sent. Default false: they are replaced by "[redacted]"
	// (archive.Options.Secrets), and each file's warcinfo record says so.
	WARCSecrets bool `yaml:"warc_secrets"`

	// KeepRaw keeps every fetch's HTTP exchanges in the store as the crawl
	// received them (request and response heads, payload as received,
	// redirect hops, robots.txt, failed tries; package archive's Keeper),
	// so that `query export --warc` writes the records `crawl --warc`
	// writes. Default false: the export is lossy (pages as stored).
	KeepRaw bool `yaml:"keep_raw"`
}

// Compressions are the accepted store.compression values.
var Compressions = []string{"fastest", "default", "better", "best"}

// Default returns a Config with every default filled in and no seeds.
// Each call returns a new Config.
func Default() *Config {
	c := &Config{
		Scope: Scope{
			MaxDepth:     DefaultMaxDepth,
			MaxURLLength: DefaultMaxURLLength,
		},
		Politeness: Politeness{
			ObeyRobots:         true,
			PerHostParallelism: DefaultPerHostParallelism,
			Concurrency:        DefaultConcurrency,
			UserAgent:          DefaultUserAgent,
			MaxCrawlDelay:      DefaultMaxCrawlDelay,
			ObeyMetaRobots:     true,
			Adaptive:           true,
			MaxDelay:           DefaultMaxDelay,
			HostFailures:       DefaultHostFailures,
		},
		Fetch: Fetch{
			Timeout:      DefaultTimeout,
			MaxBodyBytes: DefaultMaxBodyBytes,
			ContentTypes: append([]string(nil), DefaultContentTypes...),
			MaxRedirects: DefaultMaxRedirects,
			Retries:      DefaultRetries,
		},
		Dedup: Dedup{
			Filter:           DefaultFilter,
			Capacity:         DefaultCapacity,
			TargetFP:         DefaultTargetFP,
			SimHashThreshold: DefaultSimHashThreshold,
			Verify:           true,
			VerifyCacheBytes: DefaultVerifyCacheBytes,
		},
		Recrawl: Recrawl{KeepVersions: DefaultKeepVersions},
		Store:   Store{Dir: DefaultStoreDir, Compression: "fastest"},
	}
	c.Fetch.Render, c.Fetch.RenderTimeout = DefaultRender, DefaultRenderTimeout
	return c
}

// Load reads the YAML file at path and parses it with Parse, using path as
// the file name in errors. A file that cannot be read gives an error
// wrapping the *os.PathError.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("configs: load %s: %w", path, err)
	}
	return Parse(path, data)
}

// Marshal returns c as YAML that Parse reads back to an equal Config.
func (c *Config) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("configs: marshal: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("configs: marshal: %w", err)
	}
	return buf.Bytes(), nil
}
