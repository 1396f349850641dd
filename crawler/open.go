package crawler

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// OpenOptions are the choices of one crawl that its config does not hold
// (the crawl command's flags). The zero value is a plain local crawl with
// the defaults.
type OpenOptions struct {
	// HeapArrays keeps the dedup index's and the verify cache's large
	// arrays on the Go heap; the default, false, keeps them in
	// memory-mapped files in the store directory
	// (contentdedup.Options.MapArrays, Options.MappedArrays).
	HeapArrays bool
	// Audit runs an exact shadow set beside the URL filter (NewOptions);
	// refused with Cluster.
	Audit bool
	// Cluster, when its URL is set, makes the crawl one node of a cluster
	// crawl; its URL filter is sized from the config (ClusterOptions).
	Cluster cluster.Options
	// WACZ, if set, is the new WACZ file that Close packages the WARC
	// files and the store's pages into, when the crawl succeeded.
	WACZ string
	// HostCounters is Options.HostCounters (0: DefaultHostCounters).
	HostCounters int
	// Logger receives what opening and closing did (the cluster node, a
	// WARC repair, the files written). nil discards.
	Logger *slog.Logger
}

// Components are what OpenComponents opened for a crawl of one config.
type Components struct {
	// Options are the crawl's options for New, built by NewOptions from the
	// config and the parts below.
	Options Options
	Store   *storage.DB
	Dedup   *contentdedup.Deduper
	Node    *cluster.Node   // nil unless OpenOptions.Cluster.URL is set
	Archive *archive.Writer // nil unless store.warc_dir is set

	log      *slog.Logger
	warcDir  string
	waczName string
}

// OpenComponents opens the components of a crawl of cfg (which must pass
// Validate): the store (StoreOptions), the crawl's deduper
// (NewCrawlDeduper), the cluster node with o.Cluster, the WARC writer with
// store.warc_dir (ArchiveOptions; on a cluster node, revisits of payloads
// other nodes archived), and the rest of the crawl's Options
// (NewOptions). On error, what was opened is closed again. Close the
// Components when the crawl has ended.
func OpenComponents(ctx context.Context, cfg *configs.Config, o OpenOptions) (_ *Components, err error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Dedup.RecrawlWindow > 0 {
		log.Warn("dedup.recrawl_window: a URL seen longer ago is fetched again when rediscovered, but its stored page is not replaced (first copy wins); on resume every stored URL counts as just seen")
	}
	c := &Components{log: log, warcDir: cfg.Store.WARCDir, waczName: o.WACZ}
	defer func() {
		if err != nil {
			c.Close(ctx, err)
		}
	}()
	if c.Store, err = storage.Open(cfg.Store.Dir, StoreOptions(cfg.Store)); err != nil {
		return nil, err
	}
	// The deduper is built here, not by NewOptions, so that crawl --serve
	// can share it with the API.
	if c.Dedup, err = NewCrawlDeduper(cfg, !o.HeapArrays); err != nil {
		return nil, err
	}
	opts := Options{Store: c.Store, Dedup: c.Dedup, MappedArrays: !o.HeapArrays, HostCounters: o.HostCounters}
	var shared archive.SharedDigests
	if o.Cluster.URL != "" {
		co := ClusterOptions(cfg.Dedup, o.Cluster)
		co.Logger = log
		co.History = c.Store // the node's copy of the document log
		if c.Node, err = cluster.Open(ctx, co); err != nil {
			return nil, err
		}
		log.Info("cluster node", "redis", co.URL, "node", c.Node.Name())
		opts.Cluster, shared = c.Node, c.Node.WARCDigests()
	}
	if opts, err = NewOptions(cfg, opts, o.Audit); err != nil {
		return nil, err
	}
	if cfg.Store.WARCDir != "" {
		ao := ArchiveOptions(cfg, c.Store)
		ao.Shared = shared
		if c.Archive, err = archive.Open(ao); err != nil {
			return nil, err
		}
		if rs := c.Archive.Repaired(); rs != (archive.RepairStats{}) {
			log.Info("WARC repaired", "dir", cfg.Store.WARCDir, "files", rs.Files, "removed", rs.Removed, "bytes_cut", rs.Cut, "digest_entries_rebuilt", rs.Entries)
		}
		opts.Archive = c.Archive
	}
	c.Options = opts
	return c, nil
}

// Close closes what OpenComponents opened: the WARC writer (then, if
// crawlErr is nil and OpenOptions.WACZ is set, writes the WACZ file), the
// cluster node, the deduper and the store. It returns crawlErr (the
// crawl's error), or else the first error of closing.
func (c *Components) Close(ctx context.Context, crawlErr error) error {
	err := crawlErr
	keep := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	if c.Archive != nil {
		keep(c.Archive.Close())
		if err == nil {
			keep(c.writeWACZ(ctx))
		}
		ws := c.Archive.Stats()
		c.log.Info("WARC written", "dir", c.warcDir, "files", ws.Files, "bytes", ws.Bytes,
			"responses", ws.Responses, "revisits", ws.Revisits, "metadata", ws.Metadata)
	}
	if c.Node != nil {
		c.Node.Close()
	}
	if c.Dedup != nil {
		c.Dedup.Close()
	}
	if c.Store != nil {
		keep(c.Store.Close())
	}
	return err
}

// writeWACZ packages every WARC file of the crawl's WARC directory and
// the store's pages as the new WACZ file OpenOptions.WACZ (crawl --wacz).
func (c *Components) writeWACZ(ctx context.Context) error {
	if c.waczName == "" {
		return nil
	}
	files, err := archive.WARCFiles(c.warcDir)
	if err != nil {
		return fmt.Errorf("--wacz: %w", err)
	}
	st, err := archive.WriteWACZFile(ctx, c.waczName, files, archive.WACZOptions{Pages: c.Store})
	if err != nil {
		return err
	}
	c.log.Info("WACZ written", "file", c.waczName, "warcs", st.WARCs, "index_lines", st.IndexLines, "pages", st.Pages, "bytes", st.Bytes)
	return nil
}
