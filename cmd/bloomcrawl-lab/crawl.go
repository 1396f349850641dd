package main

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/lab/bench"
)

func init() {
	register(command{
		Name:    "crawl",
		Summary: "crawl throughput and memory on directories of HTML served on loopback, vs wget and other crawlers",
		Run:     runBenchCrawl,
	})
}

func runBenchCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("crawl", "crawl --corpus DIR [--corpus DIR ...] [--tools bloomcrawl,wget] [--tool NAME=COMMAND] [--nginx PATH] [--json]", stderr)
	var corpora, extra stringList
	fs.Var(&corpora, "corpus", "directory of HTML pages to serve on loopback and crawl (repeatable; required)")
	fs.Var(&extra, "tool", "another crawler to run, NAME=COMMAND ({seed} is replaced by the seed URL, {dir} by a scratch directory), e.g. colly='bloomcrawl-lab colly {seed}'; list NAME in --tools (repeatable)")
	port := fs.Int("port", 0, "loopback port to serve the corpus on (0 = any free port)")
	nginx := fs.String("nginx", "", "serve with this nginx binary instead of Go's file server, e.g. --nginx nginx")
	wget := fs.String("wget", "wget", "the wget binary (tool wget)")
	tools := fs.String("tools", "bloomcrawl,wget", "tools to run, in order: bloomcrawl, wget and the names given with --tool")
	seedPath := fs.String("seed-path", "/", "path of the seed on each corpus")
	concurrency := fs.Int("concurrency", 16, "bloomcrawl's concurrency (and per-host parallelism)")
	limit := fs.Duration("tool-timeout", 10*time.Minute, "stop any tool after this long")
	lock := fs.String("lock", "/tmp/bloomcrawl-bench.lock", "flock this file for the whole run (\"\" = no lock)")
	asJSON := fs.Bool("json", false, "print one JSON object per run")
	bloomcrawl := bloomcrawlFlag(fs, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(corpora) == 0 {
		return usagef("--corpus: give one or more directories of HTML pages")
	}
	defined := map[string]bench.Tool{}
	for _, t := range extra {
		name, line, ok := strings.Cut(t, "=")
		if !ok || name == "" || strings.TrimSpace(line) == "" {
			return usagef("--tool %q: want NAME=COMMAND", t)
		}
		defined[name] = bench.CommandTool(name, line)
	}
	exe, cleanup, err := bloomcrawl(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	o := bench.CrawlOptions{Corpora: corpora, Nginx: *nginx, Port: *port, SeedPath: *seedPath, Limit: *limit, Lock: *lock, Log: stderr}
	for _, name := range cli.SplitList(*tools) {
		switch t, ok := defined[name]; {
		case ok:
			o.Tools = append(o.Tools, t)
		case name == "bloomcrawl":
			o.Tools = append(o.Tools, bench.BloomcrawlTool(func(ctx context.Context, args ...string) *exec.Cmd {
				return exec.CommandContext(ctx, exe, args...)
			}, *concurrency))
		case name == "wget":
			if _, err := exec.LookPath(*wget); err != nil {
				return usagef("--tools: wget: %v (install wget or leave it out of --tools)", err)
			}
			o.Tools = append(o.Tools, bench.WgetTool(*wget))
		default:
			return usagef("--tools: unknown tool %q (bloomcrawl, wget, or one defined with --tool)", name)
		}
	}
	rows, err := bench.Crawl(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		return cli.WriteJSONLines(stdout, rows)
	}
	bench.WriteCrawlTable(stdout, rows)
	return nil
}
