package samplesite

import (
	"fmt"
	"io"

	"github.com/bloomcrawl/bloomcrawl/configs"
)

// DemoConfig is the crawl `bloomcrawl demo` runs of the site served at
// base: from its home page into the store dir (and WARC files into
// warcDir, "" for none), its URL trap excluded, eight fetches at a time
// and a 5 s timeout. The config is validated.
func (s *Site) DemoConfig(base, dir, warcDir string) (*configs.Config, error) {
	cfg := configs.Default()
	cfg.Seeds = []string{base + "/"}
	cfg.Store.Dir = dir
	cfg.Store.WARCDir = warcDir
	// The calendar is an endless URL trap; max_depth alone would bound it,
	// the exclude rule keeps the demo short.
	cfg.Scope.Exclude = []string{s.manifest.Trap.Exclude}
	cfg.Politeness.PerHostParallelism = 8
	cfg.Fetch.Timeout = configs.Duration(5e9)
	return cfg, cfg.Validate()
}

// WriteIntro writes the lines `bloomcrawl demo` starts with: what it
// crawls at base, and what the site holds.
func (s *Site) WriteIntro(w io.Writer, base string) error {
	_, err := fmt.Fprintf(w, "bloomcrawl demo: crawling the built-in sample site at %s/ (loopback, no network)\n"+
		"  English and Chinese articles, print/syndicated/edited copies, a GBK page, redirects,\n"+
		"  a 404, a PDF, a slow page, robots.txt, and a calendar URL trap (excluded: %s)\n\n", base, s.manifest.Trap.Exclude)
	return err
}
