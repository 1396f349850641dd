package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/bloomcrawl/bloomcrawl/archive"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// logRepair logs what archive.Open repaired of a crawl killed with -9.
func logRepair(log *slog.Logger, dir string, rs archive.RepairStats) {
	if rs != (archive.RepairStats{}) {
		log.Info("WARC repaired", "dir", dir, "files", rs.Files, "removed", rs.Removed, "bytes_cut", rs.Cut, "digest_entries_rebuilt", rs.Entries)
	}
}

// crawlWACZ packages every WARC file of dir and the store's pages as the
// new WACZ file name, at the end of a crawl (crawl --wacz).
func crawlWACZ(ctx context.Context, name, dir string, db *storage.DB, log *slog.Logger) error {
	if name == "" {
		return nil
	}
	files, err := warcFiles(dir)
	if err != nil {
		return fmt.Errorf("--wacz: %w", err)
	}
	st, err := archive.WriteWACZFile(ctx, name, files, archive.WACZOptions{Pages: db})
	if err != nil {
		return err
	}
	log.Info("WACZ written", "file", name, "warcs", st.WARCs, "index_lines", st.IndexLines, "pages", st.Pages, "bytes", st.Bytes)
	return nil
}
