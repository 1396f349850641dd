package crawler

import (
	"errors"
	"fmt"
	"time"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/frontier"
	"github.com/bloomcrawl/bloomcrawl/storage"
	"github.com/bloomcrawl/bloomcrawl/urlfilter"
)

// This file is the one place that turns a configs.Config into the
// components of a crawl: the settings the pipeline reads, the store
// options, the content deduper, the URL filter, the archive and cluster
// options. Every command (crawl, serve, dedup, demo, the benchmarks) and
// the tests build them here (NewOptions for a crawl); New receives the
// result and never sees the config. The scope and the frontier are built
// by New from the Settings (newScope, frontierOptions below).

// NewSettings returns the settings of a crawl of cfg (which must pass
// Validate) that the pipeline reads.
func NewSettings(cfg *configs.Config) Settings {
	return Settings{Seeds: cfg.Seeds, Scope: cfg.Scope, Politeness: cfg.Politeness, Fetch: cfg.Fetch, Recrawl: cfg.Recrawl,
		Verify: cfg.Dedup.Verify, VerifyCacheBytes: cfg.Dedup.VerifyCacheBytes,
		KeepRaw: cfg.Store.KeepRaw, KeepSecrets: cfg.Store.WARCSecrets}
}

// CheckCluster refuses, naming the option, what cluster mode does not
// support: the cluster's exact seen-state in Redis replaces the URL
// filter (dedup.filter).
func CheckCluster(cfg *configs.Config) error {
	if cfg.Dedup.Filter != configs.DefaultFilter {
		return fmt.Errorf("dedup.filter %s does not apply in cluster mode: the cluster's seen-state is exact (64-bit URL fingerprints in Redis, docs/cluster.md); remove dedup.filter", cfg.Dedup.Filter)
	}
	return nil
}

// ErrClusterAudit refuses --audit in cluster mode: there is no URL
// filter to audit.
var ErrClusterAudit = errors.New("--audit: a cluster's seen-state is exact (64-bit URL fingerprints, not a Bloom filter), so there is no URL filter to audit (docs/cluster.md)")

// NewOptions returns o completed from cfg: Settings from NewSettings,
// and the components cfg describes that o leaves nil: Dedup (NewDeduper)
// and, unless o.Cluster is set, URLFilter (NewURLFilter; with audit set,
// wrapped in a urlfilter.Audit whose false positives FalsePositives
// reports). cfg must pass Validate; with o.Cluster set, what cluster mode
// does not support is refused (CheckCluster). Errors name the option.
func NewOptions(cfg *configs.Config, o Options, audit bool) (Options, error) {
	if err := cfg.Validate(); err != nil {
		return o, fmt.Errorf("crawler: %w", err)
	}
	o.Settings = NewSettings(cfg)
	if o.Cluster != nil {
		if err := CheckCluster(cfg); err != nil {
			return o, fmt.Errorf("crawler: %w", err)
		}
		if audit {
			return o, fmt.Errorf("crawler: %w", ErrClusterAudit)
		}
	} else if o.URLFilter == nil {
		f, err := NewURLFilter(cfg.Dedup)
		if err != nil {
			return o, fmt.Errorf("crawler: %w", err)
		}
		o.URLFilter = f
		if audit {
			a := urlfilter.NewAudit(f)
			o.URLFilter, o.FalsePositives = a, a.FalsePositives
		}
	}
	if o.Dedup == nil {
		d, err := NewDeduper(cfg.Dedup)
		if err != nil {
			return o, fmt.Errorf("crawler: %w", err)
		}
		o.Dedup = d
	}
	return o, nil
}

// NewURLFilter builds the URL filter that d describes (dedup.filter,
// dedup.capacity, dedup.target_fp; a chain filter rotates every
// dedup.recrawl_window/4 so that it remembers every URL seen within the
// window). Errors name the config field.
func NewURLFilter(d configs.Dedup) (urlfilter.Filter, error) {
	o := urlfilter.Options{Variant: d.Filter, Capacity: d.Capacity, TargetFP: d.TargetFP}
	if d.Filter == urlfilter.VariantChain {
		// A ring of 5 generations rotated every window/4 remembers every URL
		// seen within the last recrawl_window.
		o.Period = time.Duration(d.RecrawlWindow) / 4
	}
	f, err := urlfilter.New(o)
	if err != nil {
		return nil, fmt.Errorf("dedup.filter: %w", err)
	}
	return f, nil
}

// DedupOptions returns the contentdedup options for d:
// dedup.simhash_threshold (and every --threshold flag, which the commands
// pass here) is contentdedup.Options.Threshold as it is, 0 meaning exact
// matches only in both.
func DedupOptions(d configs.Dedup) contentdedup.Options {
	return contentdedup.Options{Threshold: new(d.SimHashThreshold)}
}

// NewDeduper builds the content deduper that d describes (DedupOptions).
func NewDeduper(d configs.Dedup) (*contentdedup.Deduper, error) {
	dd, err := contentdedup.New(DedupOptions(d))
	if err != nil {
		return nil, fmt.Errorf("dedup.simhash_threshold: %w", err)
	}
	return dd, nil
}

// StoreOptions returns the options a crawl opens its store with. A crawl
// writes far more than it reads: small memtables and block cache keep
// Badger's share of the process's memory small.
func StoreOptions(s configs.Store) *storage.Options {
	return &storage.Options{MemTableSize: 32 << 20, BlockCacheSize: 16 << 20, Compression: s.Compression, MinFreeBytes: s.MinFreeBytes}
}

// NewCrawlDeduper builds the content deduper of a crawl into cfg's store
// (DedupOptions(cfg.Dedup)): its sketches and first URLs wait in an
// unlinked file beside the store instead of the heap (only a lookup's few
// candidates are read back), and with mapArrays its index's arrays are
// memory-mapped there too (contentdedup.Options.MapArrays). Close it after
// the crawl.
func NewCrawlDeduper(cfg *configs.Config, mapArrays bool) (*contentdedup.Deduper, error) {
	do := DedupOptions(cfg.Dedup)
	do.SpillDir = cfg.Store.Dir
	do.MapArrays = mapArrays
	dd, err := contentdedup.New(do)
	if err != nil {
		return nil, fmt.Errorf("dedup.simhash_threshold: %w", err)
	}
	return dd, nil
}

// ArchiveOptions returns the options of the WARC writer of a crawl into
// cfg.Store.WARCDir (store.warc_max_bytes; its warcinfo names the robots
// policy and the user agent), remembering its records in index (the
// crawl's store).
func ArchiveOptions(cfg *configs.Config, index archive.Index) archive.Options {
	robots := "obey"
	if !cfg.Politeness.ObeyRobots {
		robots = "ignore"
	}
	return archive.Options{Dir: cfg.Store.WARCDir, MaxBytes: cfg.Store.WARCMaxBytes, Index: index, Secrets: cfg.Store.WARCSecrets,
		Info: map[string]string{"robots": robots, "http-header-user-agent": cfg.Politeness.UserAgent}}
}

// ClusterOptions returns o (the command line's cluster options) with the
// cluster-wide URL filter sized and confirmed as d says (dedup.capacity,
// dedup.target_fp, dedup.verify).
func ClusterOptions(d configs.Dedup, o cluster.Options) cluster.Options {
	o.Capacity, o.TargetFP, o.Verify = uint64(d.Capacity), d.TargetFP, d.Verify
	return o
}

// newScope builds the crawl's scope (scope.*; the seeds' hosts when
// scope.allowed_hosts is empty).
func newScope(canon *urlfilter.Canonicalizer, set Settings) (*urlfilter.Scope, error) {
	allowed := set.Scope.AllowedHosts
	var seedHosts []string
	for i, s := range set.Seeds {
		u, err := canon.Canonicalize(nil, s)
		if err != nil {
			return nil, fmt.Errorf("crawler: seeds[%d] %q: %w", i, s, err)
		}
		seedHosts = append(seedHosts, u.Host)
	}
	if len(allowed) == 0 {
		allowed = seedHosts
	}
	scope, err := urlfilter.NewScope(urlfilter.ScopeOptions{
		AllowedHosts: allowed,
		DeniedHosts:  set.Scope.DeniedHosts,
		Include:      set.Scope.Include,
		Exclude:      set.Scope.Exclude,
		MaxURLLength: set.Scope.MaxURLLength,
	})
	if err != nil {
		return nil, fmt.Errorf("crawler: scope: %w", err)
	}
	return scope, nil
}

// frontierOptions returns the options of the crawl's frontier over store,
// testing URLs against filter: politeness and scope limits from s, and
// with s.Verify (dedup.verify) the filter's "seen" answers confirmed
// against the store's URL records and queue entries, remembering
// s.VerifyCacheBytes (dedup.verify_cache_bytes) of recent URLs (in the
// store's directory with mapArrays: page cache, not heap).
func frontierOptions(s Settings, filter urlFilter, store pageStore, window int, mapArrays bool) frontier.Options {
	fo := frontier.Options{
		Filter:             filter,
		Store:              queueAdapter{store},
		Window:             window,
		PerHostParallelism: s.Politeness.PerHostParallelism,
		Delay:              time.Duration(s.Politeness.Delay),
		MaxDepth:           s.Scope.MaxDepth,
		MaxPerHost:         s.Scope.MaxPagesPerHost,
		MaxTotal:           s.Scope.MaxPages,
		// a host's Crawl-delay is known once its robots.txt is read, while
		// its first URL is fetched
		HoldNewHosts: s.Politeness.ObeyRobots,
		Continuous:   s.Recrawl.Continuous,
	}
	if s.Verify {
		fo.Confirm = store
		fo.RecentBytes = int(s.VerifyCacheBytes)
		if d, ok := store.(interface{ Dir() string }); ok && mapArrays {
			fo.SpillDir = d.Dir()
		}
	}
	return fo
}
