package filterbench

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
)

// SaveFPReport writes, into dir (created if missing), report.md
// (WriteFPReport) and the rows as fp.jsonl, one JSON object a line, which
// cmd/bloomcrawl-lab fpchart reads to draw the chart report.md shows.
func SaveFPReport(dir, source string, tested int, rows []FPRow) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md, jl strings.Builder
	WriteFPReport(&md, source, tested, rows)
	if err := cli.WriteJSONLines(&jl, rows); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "fp.jsonl"), []byte(jl.String()), 0o644)
}
