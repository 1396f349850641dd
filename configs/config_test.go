package configs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestExampleConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d example configs, want at least 3: %v", len(files), files)
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			cfg, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatalf("example does not validate: %v", err)
			}
		})
	}
}

// TestExampleYAMLIsDefault checks that example.yaml documents every field
// with its real default (except the placeholder seed).
func TestExampleYAMLIsDefault(t *testing.T) {
	cfg, err := Load("example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Seeds = []string{"https://www.example.org/"}
	assertEqualConfig(t, cfg, want)
	// Every field of the schema appears in example.yaml.
	data, _ := os.ReadFile("example.yaml")
	for _, key := range yamlKeys(reflect.TypeFor[Config]()) {
		if !strings.Contains(string(data), "\n"+key+":") && !strings.Contains(string(data), " "+key+":") {
			t.Errorf("example.yaml does not document %q", key)
		}
	}
}

func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || tag == "" {
			continue
		}
		keys = append(keys, tag)
		if f.Type.Kind() == reflect.Struct && f.Type != durationType {
			keys = append(keys, yamlKeys(f.Type)...)
		}
	}
	return keys
}

func assertEqualConfig(t *testing.T, got, want *Config) {
	t.Helper()
	g, w := *got, *want
	g.lines, g.name, w.lines, w.name = nil, "", nil, ""
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("config mismatch\n got: %+v\nwant: %+v", g, w)
	}
}

func TestDefaults(t *testing.T) {
	d := Default()
	checks := []struct {
		name      string
		got, want any
	}{
		{"max_depth", d.Scope.MaxDepth, 50},
		{"max_pages", d.Scope.MaxPages, 0},
		{"max_pages_per_host", d.Scope.MaxPagesPerHost, 0},
		{"max_url_length", d.Scope.MaxURLLength, 2048},
		{"obey_robots", d.Politeness.ObeyRobots, true},
		{"verify", d.Dedup.Verify, true},
		{"verify_cache_bytes", d.Dedup.VerifyCacheBytes, int64(128 << 20)},
		{"delay", d.Politeness.Delay.Std(), time.Duration(0)},
		{"per_host_parallelism", d.Politeness.PerHostParallelism, 2},
		{"concurrency", d.Politeness.Concurrency, 16},
		{"user_agent", d.Politeness.UserAgent, "bloomcrawl/0.1 (+https://github.com/bloomcrawl/bloomcrawl)"},
		{"max_crawl_delay", d.Politeness.MaxCrawlDelay.Std(), 30 * time.Second},
		{"obey_meta_robots", d.Politeness.ObeyMetaRobots, true},
		{"follow_nofollow_links", d.Politeness.FollowNofollowLinks, false},
		{"sitemaps", d.Scope.Sitemaps.Auto(), true},
		{"timeout", d.Fetch.Timeout.Std(), 30 * time.Second},
		{"max_body_bytes", d.Fetch.MaxBodyBytes, int64(10 << 20)},
		{"content_types", d.Fetch.ContentTypes, []string{"text/html", "application/xhtml+xml"}},
		{"max_redirects", d.Fetch.MaxRedirects, 10},
		{"filter", d.Dedup.Filter, "default"},
		{"capacity", d.Dedup.Capacity, uint64(1_000_000)},
		{"target_fp", d.Dedup.TargetFP, 0.001},
		{"recrawl_window", d.Dedup.RecrawlWindow.Std(), time.Duration(0)},
		{"simhash_threshold", d.Dedup.SimHashThreshold, 3},
		{"keep_versions", d.Recrawl.KeepVersions, 3},
		{"dir", d.Store.Dir, "./crawl.db"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("default %s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if err := d.Validate(); err == nil || err.Error() != "configs: seeds: at least one seed URL is required" {
		t.Errorf("Validate of Default() with no seeds = %v", err)
	}
	d.Fetch.ContentTypes[0] = "changed"
	if Default().Fetch.ContentTypes[0] != "text/html" {
		t.Error("Default shares its content_types slice between calls")
	}
}

func TestParseValues(t *testing.T) {
	cfg, err := Parse("crawl.yaml", []byte(`
seeds: [http://127.0.0.1:8080/, "https://例子.cn/path?q=1"]
scope:
  max_depth: 0
  max_pages: 1_000
  exclude: ['[?&]month=']
politeness:
  obey_robots: false
  delay: 1.5s
fetch:
  timeout: 500ms
  content_types: [text/html, "text/*"]
dedup:
  filter: chain
  capacity: 5000
  target_fp: 1e-4
  recrawl_window: 24h
  simhash_threshold: 0
store:
  dir: /tmp/x.db
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Seeds = []string{"http://127.0.0.1:8080/", "https://例子.cn/path?q=1"}
	want.Scope.MaxDepth = 0
	want.Scope.MaxPages = 1000
	want.Scope.Exclude = []string{`[?&]month=`}
	want.Politeness.ObeyRobots = false
	want.Politeness.Delay = Duration(1500 * time.Millisecond)
	want.Fetch.Timeout = Duration(500 * time.Millisecond)
	want.Fetch.ContentTypes = []string{"text/html", "text/*"}
	want.Dedup.Filter = "chain"
	want.Dedup.Capacity = 5000
	want.Dedup.TargetFP = 1e-4
	want.Dedup.RecrawlWindow = Duration(24 * time.Hour)
	want.Dedup.SimHashThreshold = 0
	want.Store.Dir = "/tmp/x.db"
	assertEqualConfig(t, cfg, want)
}

func TestParseEmptyAndNullSections(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "scope:\npoliteness:\n", "---\n"} {
		cfg, err := Parse("c.yaml", []byte(src))
		if err != nil {
			t.Fatalf("Parse(%q): %v", src, err)
		}
		assertEqualConfig(t, cfg, Default())
	}
	// An empty list clears a default list (and then fails validation).
	_, err := Parse("c.yaml", []byte("fetch:\n  content_types:\n"))
	if err == nil || err.Error() != "c.yaml:2: fetch.content_types: must list at least one media type (e.g. text/html)" {
		t.Fatalf("got %v", err)
	}
}

// TestParseErrors covers every class of error with its exact message.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		// Syntax and structure.
		{"syntax", "seeds: [\n", "crawl.yaml:1: YAML syntax: did not find expected node content"},
		{"syntax tab", "scope:\n\tmax_depth: 1\n", "crawl.yaml:2: YAML syntax: found character that cannot start any token"},
		{"duplicate key", "store:\n  dir: a\n  dir: b\n", `crawl.yaml:3: store.dir: duplicate field (first given at line 2)`},
		{"two documents", "seeds: []\n---\nseeds: []\n", "crawl.yaml:2: more than one YAML document; a config file holds one"},
		{"top level list", "- http://a/\n", "crawl.yaml:1: expected a mapping of fields at the top level, got a list"},
		{"section scalar", "scope: 3\n", "crawl.yaml:1: scope: expected a mapping of fields, got the integer 3"},
		{"merge key", "base: &b {max_depth: 1}\n", "crawl.yaml:1: base: unknown field (known fields: seeds, scope, politeness, fetch, dedup, store, recrawl)"},
		{"merge key used", "scope:\n  <<: {max_depth: 1}\n", "crawl.yaml:2: scope.<<: merge keys are not supported"},
		{"non-string key", "scope:\n  [a]: 1\n", "crawl.yaml:2: scope: field names must be plain strings, got a list"},
		// Unknown fields.
		{"unknown typo", "scope:\n  max_dept: 3\n", "crawl.yaml:2: scope.max_dept: unknown field (did you mean max_depth?)"},
		{"unknown top", "seed: [http://a/]\n", "crawl.yaml:1: seed: unknown field (did you mean seeds?)"},
		{"unknown far", "store:\n  path: x\n", "crawl.yaml:2: store.path: unknown field (known fields: dir, compression, min_free_bytes, warc_dir, warc_max_bytes, warc_secrets, keep_raw)"},
		// Types.
		{"int from string", "scope:\n  max_depth: abc\n", `crawl.yaml:2: scope.max_depth: cannot use "abc" as an integer`},
		{"int from float", "scope:\n  max_pages: 1.5\n", `crawl.yaml:2: scope.max_pages: cannot use "1.5" as an integer`},
		{"int from list", "scope:\n  max_pages: [1]\n", `crawl.yaml:2: scope.max_pages: expected an integer, got a list`},
		{"uint negative", "dedup:\n  capacity: -5\n", `crawl.yaml:2: dedup.capacity: cannot use "-5" as a non-negative integer`},
		{"float from string", "dedup:\n  target_fp: low\n", `crawl.yaml:2: dedup.target_fp: cannot use "low" as a number`},
		{"float nan", "dedup:\n  target_fp: .nan\n", `crawl.yaml:2: dedup.target_fp: cannot use ".nan" as a number`},
		{"bool yes", "politeness:\n  obey_robots: yes\n", `crawl.yaml:2: politeness.obey_robots: cannot use "yes" as true or false`},
		{"bool", "politeness:\n  obey_robots: maybe\n", `crawl.yaml:2: politeness.obey_robots: cannot use "maybe" as true or false`},
		{"string from map", "politeness:\n  user_agent: {a: b}\n", `crawl.yaml:2: politeness.user_agent: expected a string, got a mapping`},
		{"null scalar", "store:\n  dir:\n", `crawl.yaml:2: store.dir: no value given (leave the key out to use the default "./crawl.db")`},
		{"null int", "scope:\n  max_depth: ~\n", `crawl.yaml:2: scope.max_depth: no value given (leave the key out to use the default 50)`},
		{"list from scalar", "seeds: http://a/\n", `crawl.yaml:1: seeds: expected a list, got "http://a/"`},
		{"list element map", "seeds:\n  - http://a/\n  - {u: 1}\n", `crawl.yaml:3: seeds[1]: expected a string, got a mapping`},
		{"duration no unit", "politeness:\n  delay: 2\n", `crawl.yaml:2: politeness.delay: invalid duration "2" (want e.g. "2s", "500ms", "1h")`},
		{"duration junk", "fetch:\n  timeout: soon\n", `crawl.yaml:2: fetch.timeout: invalid duration "soon" (want e.g. "2s", "500ms", "1h")`},
		{"duration list", "fetch:\n  timeout: [1s]\n", `crawl.yaml:2: fetch.timeout: expected a duration such as "2s", got a list`},
		{"duration null", "fetch:\n  timeout:\n", `crawl.yaml:2: fetch.timeout: no value given (leave the key out to use the default 30s)`},
		// Validation.
		{"seed relative", "seeds:\n  - http://a/\n  - /docs/\n", `crawl.yaml:3: seeds[1]: "/docs/" is not an absolute http(s) URL`},
		{"seed ftp", "seeds: [ftp://a/]\n", `crawl.yaml:1: seeds[0]: "ftp://a/" is not an absolute http(s) URL`},
		{"seed no host", "seeds: ['http:///x']\n", `crawl.yaml:1: seeds[0]: "http:///x" has no host`},
		{"seed bad", "seeds: ['http://a b/']\n", `crawl.yaml:1: seeds[0]: "http://a b/" is not a valid URL: invalid character " " in host name`},
		{"allowed host url", "scope:\n  allowed_hosts: [http://a/]\n", `crawl.yaml:2: scope.allowed_hosts[0]: "http://a/" must be a host name, not a URL`},
		{"denied host empty", "scope:\n  denied_hosts: ['']\n", `crawl.yaml:2: scope.denied_hosts[0]: "" is empty`},
		{"host space", "scope:\n  allowed_hosts: ['a b']\n", `crawl.yaml:2: scope.allowed_hosts[0]: "a b" must not contain spaces`},
		{"include regexp", "scope:\n  include:\n    - ok\n    - '('\n", "crawl.yaml:4: scope.include[1]: invalid regexp \"(\": missing closing ): `(`"},
		{"exclude regexp", "scope:\n  exclude: ['a**']\n", "crawl.yaml:2: scope.exclude[0]: invalid regexp \"a**\": invalid nested repetition operator: `**`"},
		{"max_depth", "scope:\n  max_depth: -1\n", "crawl.yaml:2: scope.max_depth: must be >= 0"},
		{"max_pages", "scope:\n  max_pages: -1\n", "crawl.yaml:2: scope.max_pages: must be >= 0 (0 = unlimited)"},
		{"max_pages_per_host", "scope:\n  max_pages_per_host: -2\n", "crawl.yaml:2: scope.max_pages_per_host: must be >= 0 (0 = unlimited)"},
		{"max_url_length", "scope:\n  max_url_length: 0\n", "crawl.yaml:2: scope.max_url_length: must be > 0"},
		{"max_url_length over the store's", "scope:\n  max_url_length: 100000\n", "crawl.yaml:2: scope.max_url_length: 100000 is more than the store accepts (16384 bytes)"},
		{"seed too long", "seeds: ['http://a.example/" + strings.Repeat("x", 20000-len("http://a.example/")) + "']\n",
			`crawl.yaml:1: seeds[0]: "http://a.example/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... is 20000 bytes, longer than scope.max_url_length (2048)`},
		{"delay", "politeness:\n  delay: -1s\n", "crawl.yaml:2: politeness.delay: must be >= 0"},
		{"per_host_parallelism", "politeness:\n  per_host_parallelism: 0\n", "crawl.yaml:2: politeness.per_host_parallelism: must be >= 1"},
		{"concurrency", "politeness:\n  concurrency: 0\n", "crawl.yaml:2: politeness.concurrency: must be >= 1"},
		{"user_agent empty", "politeness:\n  user_agent: ' '\n", "crawl.yaml:2: politeness.user_agent: must not be empty"},
		{"user_agent control", "politeness:\n  user_agent: \"a\\nb\"\n", "crawl.yaml:2: politeness.user_agent: must not contain control characters"},
		{"timeout", "fetch:\n  timeout: 0s\n", "crawl.yaml:2: fetch.timeout: must be > 0"},
		{"max_body_bytes", "fetch:\n  max_body_bytes: 0\n", "crawl.yaml:2: fetch.max_body_bytes: must be > 0"},
		{"content_types empty", "fetch:\n  content_types: []\n", "crawl.yaml:2: fetch.content_types: must list at least one media type (e.g. text/html)"},
		{"content_types bad", "fetch:\n  content_types: [html]\n", `crawl.yaml:2: fetch.content_types[0]: "html" is not a media type (want e.g. "text/html")`},
		{"max_redirects", "fetch:\n  max_redirects: -1\n", "crawl.yaml:2: fetch.max_redirects: must be >= 0"},
		{"filter", "dedup:\n  filter: bloom\n", `crawl.yaml:2: dedup.filter: unknown filter "bloom" (want one of default, mdbf, mdbf-routed, classic, blocked, exact, scalable, chain)`},
		{"chain without window", "dedup:\n  filter: chain\n", "crawl.yaml:2: dedup.filter: the chain filter forgets URLs after dedup.recrawl_window, which must then be > 0"},
		{"chain without window", "dedup:\n  filter: chain\n", "crawl.yaml:2: dedup.filter: the chain filter forgets URLs after dedup.recrawl_window, which must then be > 0"},
		{"capacity", "dedup:\n  capacity: 0\n", "crawl.yaml:2: dedup.capacity: must be >= 1"},
		{"verify_cache_bytes", "dedup:\n  verify_cache_bytes: -1\n", "crawl.yaml:2: dedup.verify_cache_bytes: must be >= 0 (0 = no cache)"},
		{"target_fp zero", "dedup:\n  target_fp: 0\n", "crawl.yaml:2: dedup.target_fp: must be in (0, 0.5), got 0"},
		{"target_fp half", "dedup:\n  target_fp: 0.5\n", "crawl.yaml:2: dedup.target_fp: must be in (0, 0.5), got 0.5"},
		{"recrawl_window", "dedup:\n  recrawl_window: -1h\n", "crawl.yaml:2: dedup.recrawl_window: must be >= 0 (0 = never recrawl)"},
		{"recrawl_window without chain", "dedup:\n  recrawl_window: 24h\n", `crawl.yaml:2: dedup.recrawl_window: not supported with dedup.filter "default" (only the chain filter uses it: how long it remembers a URL); to fetch pages again use recrawl.rules`},
		{"recrawl rule regexp", "recrawl:\n  continuous: true\n  rules:\n    - match: '('\n      every: 5m\n", "crawl.yaml:4: recrawl.rules[0].match: invalid regexp \"(\": missing closing ): `(`"},
		{"recrawl rule every", "recrawl:\n  continuous: true\n  rules:\n    - match: x\n      every: 0s\n", "crawl.yaml:5: recrawl.rules[0].every: must be > 0, got 0s"},
		{"recrawl rule unknown", "recrawl:\n  rules:\n    - match: x\n      evry: 1s\n", "crawl.yaml:4: recrawl.rules[0].evry: unknown field (did you mean every?)"},
		{"recrawl not continuous", "recrawl:\n  seeds_every: 5m\n", "crawl.yaml:2: recrawl.seeds_every: refreshes need a continuous crawl: set recrawl.continuous: true (or crawl --continuous)"},
		{"keep_versions 0", "recrawl:\n  continuous: true\n  keep_versions: 0\n", "crawl.yaml:3: recrawl.keep_versions: must be >= 1 (1 = the latest version only), got 0"},
		{"keep_versions not continuous", "recrawl:\n  keep_versions: 10\n", "crawl.yaml:2: recrawl.keep_versions: versions come from refreshes, which need a continuous crawl: set recrawl.continuous: true (or crawl --continuous)"},
		{"simhash_threshold high", "dedup:\n  simhash_threshold: 7\n", "crawl.yaml:2: dedup.simhash_threshold: must be between 0 and 6"},
		{"simhash_threshold low", "dedup:\n  simhash_threshold: -1\n", "crawl.yaml:2: dedup.simhash_threshold: must be between 0 and 6"},
		{"store dir", "store:\n  dir: ''\n", "crawl.yaml:2: store.dir: must not be empty"},
		{"store reserve", "store:\n  min_free_bytes: -2\n", "crawl.yaml:2: store.min_free_bytes: must be >= 0 (0 = automatic) or -1 (off), got -2"},
		// Several problems: all reported, in line order.
		{"several", "dedup:\n  simhash_threshold: 9\nscope:\n  max_depth: -1\n", "crawl.yaml:2: dedup.simhash_threshold: must be between 0 and 6\ncrawl.yaml:4: scope.max_depth: must be >= 0"},
		{"several unknown", "scope:\n  a: 1\n  max_depth: x\n", "crawl.yaml:2: scope.a: unknown field (known fields: allowed_hosts, denied_hosts, include, exclude, max_depth, max_pages, max_pages_per_host, max_url_length, sitemaps)\ncrawl.yaml:3: scope.max_depth: cannot use \"x\" as an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse("crawl.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; got %+v", cfg)
			}
			if cfg != nil {
				t.Errorf("config returned along with error")
			}
			if err.Error() != tt.want {
				t.Fatalf("error:\n got: %s\nwant: %s", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "crawl.yaml" {
				t.Fatalf("error is not an *Error naming the file: %#v", err)
			}
		})
	}
}

func TestValidateAfterOverride(t *testing.T) {
	cfg, err := Parse("crawl.yaml", []byte("store:\n  dir: ./a.db\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seeds = []string{"http://127.0.0.1:8080/"}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg.Store.Dir = ""
	cfg.Seeds = append(cfg.Seeds, "mailto:x@y")
	err = cfg.Validate()
	want := "configs: seeds[1]: \"mailto:x@y\" is not an absolute http(s) URL\nconfigs: store.dir: must not be empty"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Line != 0 || e.File != "" || e.Field != "seeds[1]" {
		t.Fatalf("first error = %#v", e)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "configs: load ") {
		t.Fatalf("got %v", err)
	}
}

func TestLoadNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.yaml")
	if err := os.WriteFile(path, []byte("seeds: [http://a/]\nscope:\n  max_depth: -3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || err.Error() != path+":3: scope.max_depth: must be >= 0" {
		t.Fatalf("got %v", err)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	for _, f := range files {
		cfg, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		data, err := cfg.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(f+" (marshalled)", data)
		if err != nil {
			t.Fatalf("%s: re-parse: %v\n%s", f, err, data)
		}
		assertEqualConfig(t, back, cfg)
	}
}

func TestDurationText(t *testing.T) {
	var d Duration
	if err := d.UnmarshalText([]byte("1m30s")); err != nil || d.Std() != 90*time.Second {
		t.Fatalf("got %v, %v", d, err)
	}
	if b, _ := d.MarshalText(); string(b) != "1m30s" {
		t.Fatalf("MarshalText = %s", b)
	}
	if err := d.UnmarshalText([]byte("90")); err == nil {
		t.Fatal("accepted a duration without unit")
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("*.yaml")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte("seeds: [http://a/]\nscope: {max_depth: -1}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("seeds: &s [http://a/]\nscope:\n  include: *s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.yaml", data)
		if err != nil {
			if cfg != nil {
				t.Fatal("config and error both returned")
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// A config that parsed marshals and parses back to itself.
		out, err := cfg.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse("again.yaml", out)
		if err != nil {
			t.Fatalf("re-parse of marshalled config: %v\n%s", err, out)
		}
		assertEqualConfig(t, back, cfg)
	})
}

// TestSitemapsField: scope.sitemaps reads auto, off or a list of URLs,
// marshals back to the same, and bad values name the line and field.
func TestSitemapsField(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want Sitemaps
		err  string
	}{
		{"scope:\n  sitemaps: auto\n", Sitemaps{}, ""},
		{"scope:\n  sitemaps: off\n", Sitemaps{Off: true}, ""},
		{"scope:\n  sitemaps: [http://a.example/s.xml, https://b.example/i.xml.gz]\n", Sitemaps{URLs: []string{"http://a.example/s.xml", "https://b.example/i.xml.gz"}}, ""},
		{"scope:\n  sitemaps: yes\n", Sitemaps{}, `c.yaml:2: scope.sitemaps: expected auto, off or a list of sitemap URLs, got "yes"`},
		{"scope:\n  sitemaps:\n    - http://a.example/s.xml\n    - /relative.xml\n", Sitemaps{}, `c.yaml:4: scope.sitemaps[1]: "/relative.xml" is not an absolute http(s) URL`},
		{"scope:\n  sitemaps:\n", Sitemaps{}, `c.yaml:2: scope.sitemaps: no value given`},
	} {
		cfg, err := Parse("c.yaml", []byte(c.yaml))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err = %v, want %s", c.yaml, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(cfg.Scope.Sitemaps, c.want) {
			t.Errorf("%q: got %+v, %v; want %+v", c.yaml, cfg.Scope.Sitemaps, err, c.want)
			continue
		}
		out, err := cfg.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse("back.yaml", out)
		if err != nil || !reflect.DeepEqual(back.Scope.Sitemaps, c.want) {
			t.Errorf("%q: round trip gave %+v, %v", c.yaml, back.Scope.Sitemaps, err)
		}
	}
	if _, err := Parse("c.yaml", []byte("politeness:\n  max_crawl_delay: -1s\n")); err == nil || !strings.Contains(err.Error(), "c.yaml:2: politeness.max_crawl_delay: must be >= 0") {
		t.Errorf("negative max_crawl_delay: %v", err)
	}
}

// TestRecrawlRules: recrawl.rules read as a list of {match, every}.
func TestRecrawlRules(t *testing.T) {
	cfg, err := Parse("news.yaml", []byte("seeds: [https://news.example.org/]\nrecrawl:\n  continuous: true\n  seeds_every: 5m\n  keep_versions: 10\n  rules:\n    - match: '/world/$'\n      every: 2m\n    - match: '/sport/'\n      every: 1h\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Recrawl
	want := []RecrawlRule{{Match: "/world/$", Every: Duration(2 * time.Minute)}, {Match: "/sport/", Every: Duration(time.Hour)}}
	if !r.Continuous || r.SeedsEvery != Duration(5*time.Minute) || !reflect.DeepEqual(r.Rules, want) || r.KeepVersions != 10 {
		t.Fatalf("recrawl = %+v", r)
	}
}
