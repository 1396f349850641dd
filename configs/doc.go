// Package configs owns bloomcrawl's crawl configuration: the YAML schema,
// its defaults, loading with errors that name the file, line and field, and
// validation.
//
// # Basics
//
// A crawl is described by a YAML file such as configs/example.yaml (every
// field, commented, with its default). Load reads one; Parse decodes bytes
// already in memory. Fields left out keep the value Default gives them:
//
//	cfg, err := configs.Load("configs/docs-site.yaml")
//	if err != nil {
//		return err // e.g. "configs/docs-site.yaml:12: scope.max_depth: must be >= 0"
//	}
//
// Command-line overrides are applied to the returned *Config and checked
// again with Validate, whose errors name the field but no line (the value no
// longer comes from the file):
//
//	cfg.Store.Dir = *storeFlag
//	if err := cfg.Validate(); err != nil { ... } // "configs: store.dir: must not be empty"
//
// # Errors
//
// Every problem is reported as an *Error (file, line, dotted field path such
// as "seeds[2]" or "scope.include[0]", message). When a file has several
// problems they are all reported, one per line, joined with errors.Join;
// errors.As finds the first *Error.
//
// Unknown fields are rejected (with a "did you mean" hint for typos), as are
// values of the wrong type, YAML syntax errors and files holding more than
// one YAML document.
//
// # Caveats
//
// Parse does not require seeds, because the crawl command can take them from
// --seed; Validate does. The URL filter variants accepted by dedup.filter
// and the dedup defaults are read from packages urlfilter, contentdedup and
// frontier (dedup.verify_cache_bytes), which own them and import nothing of
// configs; package crawler turns a Config into those components, in one
// file (crawler/components.go: crawler.NewOptions and NewSettings, which
// give crawler.New the settings and components it runs with, StoreOptions,
// NewCrawlDeduper, NewURLFilter, ArchiveOptions, ClusterOptions; and
// crawler.OpenComponents, which opens them).
package configs
