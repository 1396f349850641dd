package main

import (
	"log/slog"

	"github.com/bloomcrawl/bloomcrawl/archive"
)

// logRepair logs what archive.Open repaired of a crawl killed with -9.
func logRepair(log *slog.Logger, dir string, rs archive.RepairStats) {
	if rs != (archive.RepairStats{}) {
		log.Info("WARC repaired", "dir", dir, "files", rs.Files, "removed", rs.Removed, "bytes_cut", rs.Cut, "digest_entries_rebuilt", rs.Entries)
	}
}
