package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/internal/cli"
	"github.com/bloomcrawl/bloomcrawl/lab/bench"
)

func init() {
	register(command{
		Name:    "serve",
		Summary: "HTTP API load: requests/s and latency of POST /v1/docid and GET /v1/pages/{docId}",
		Run:     runBenchServe,
	})
}

func runBenchServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "serve --corpora DIRS [--clients N] [--requests N] [--size BYTES] [--dup-every K] [--json]", stderr)
	corpora := fs.String("corpora", "", "comma-separated directories of HTML pages, Chinese and English; their text is cut into articles (required)")
	clients := fs.Int("clients", 8, "concurrent HTTP clients (each with its own keep-alive connection)")
	requests := fs.Int("requests", 1000, "POST requests per language (and GET requests)")
	size := fs.Int("size", 5000, "article size in bytes of UTF-8 text")
	dupEvery := fs.Int("dup-every", 4, "every K-th POST is a near-copy of an earlier document under a new URL (0 = none); the others are real articles, then mixes of their lines")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	direct := fs.Bool("direct", true, "also send the same documents through Service.SubmitJSON in process (no HTTP), on a second store, for comparison")
	store := fs.String("store", "", "store directory (default: a new temporary directory, removed afterwards)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *corpora == "" {
		return usagef("--corpora: give one or more directories of HTML pages")
	}
	if *clients < 1 || *requests < 1 || *size < 500 || *dupEvery < 0 {
		return usagef("--clients and --requests must be >= 1, --size >= 500, --dup-every >= 0")
	}
	o := bench.ServeOptions{Clients: *clients, Requests: *requests, Size: *size, DupEvery: *dupEvery,
		Direct: *direct, Store: *store, Log: stderr}
	t0 := time.Now()
	var err error
	if o.Pages, err = bench.LoadCorpus(ctx, strings.Split(*corpora, ","), bench.CorpusOptions{}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench serve: %d pages from %s (%v)\n", len(o.Pages), *corpora, time.Since(t0).Round(time.Millisecond))
	rep, err := bench.Serve(ctx, o)
	if err != nil {
		return err
	}
	if *asJSON {
		return cli.WriteJSON(stdout, rep)
	}
	return bench.WriteServeTable(stdout, rep)
}
