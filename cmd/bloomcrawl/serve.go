package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/console"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		Name:    "serve",
		Summary: "serve the HTTP API: docId service, stored pages, stats, metrics",
		Run:     runServe,
	})
}

// serveFlags are the parsed flags of 'bloomcrawl serve'.
type serveFlags struct {
	store, addr, token string
	threshold          int
	maxBody            int64
	maxBatch           int
	minFree            int64
	seen               seen.Options
}

func parseServeFlags(args []string, stderr io.Writer) (*serveFlags, error) {
	fs := newFlagSet("serve", "serve --store DIR [--addr 127.0.0.1:8080] [--token T] [--threshold K] [--max-body BYTES] [--max-batch N] [--min-free-bytes N] [--seen-capacity N --seen-fp F --seen-blocks N --seen-ttl D --seen-audit]", stderr)
	store := fs.String("store", "", "store directory (created if missing; required)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address host:port; a non-loopback host needs --token")
	token := fs.String("token", "", "bearer token required on every request except /healthz (default $BLOOMCRAWL_TOKEN)")
	threshold := fs.Int("threshold", contentdedup.DefaultThreshold, fmt.Sprintf("SimHash Hamming distance at or below which documents are near-duplicates (0 = exact only .. %d)", contentdedup.MaxThreshold))
	maxBody := fs.Int64("max-body", api.DefaultMaxBody, "largest request body in bytes (413 above)")
	maxBatch := fs.Int("max-batch", api.DefaultMaxBatch, "most documents in one POST /v1/docid:batch (413 above)")
	minFree := minFreeFlag(fs)
	seenOpts := seenFlags(fs, "seen-")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	f := &serveFlags{store: *store, addr: *addr, token: *token, threshold: *threshold,
		maxBody: *maxBody, maxBatch: *maxBatch, minFree: *minFree}
	switch {
	case fs.NArg() > 0:
		return nil, usagef("unexpected argument %q", fs.Arg(0))
	case f.store == "":
		return nil, usagef("--store DIR is required")
	case f.threshold < 0 || f.threshold > contentdedup.MaxThreshold:
		return nil, usagef("--threshold %d: want 0..%d", f.threshold, contentdedup.MaxThreshold)
	case f.minFree < -1:
		return nil, usagef("--min-free-bytes %d: want >= 0 (0 = default) or -1 (off)", f.minFree)
	case f.maxBody <= 0:
		return nil, usagef("--max-body %d: want a positive number of bytes", f.maxBody)
	case f.maxBatch <= 0:
		return nil, usagef("--max-batch %d: want a positive count", f.maxBatch)
	}
	if f.token == "" {
		f.token = os.Getenv("BLOOMCRAWL_TOKEN")
	}
	var err error
	if f.seen, err = seenOpts(); err != nil {
		return nil, err
	}
	// Refuse a public address without a token before the slow start-up
	// (dictionary load, index rebuild).
	if err := api.CheckAddr(f.addr, f.token != ""); err != nil {
		if errors.Is(err, api.ErrNeedToken) {
			return nil, usagef("--addr %s is not a loopback address: pass --token T (or set BLOOMCRAWL_TOKEN) so that clients must send \"Authorization: Bearer T\"", f.addr)
		}
		return nil, usagef("--addr: %v", err)
	}
	return f, nil
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))

	db, err := storage.Open(f.store, &storage.Options{MinFreeBytes: f.minFree})
	if errors.Is(err, storage.ErrLocked) {
		return fmt.Errorf("open store %s: %w (one process owns a store: to serve a store while crawling it, run the crawl with --serve ADDR)", f.store, err)
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", f.store, err)
	}
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()
	d, err := crawler.NewDeduper(configs.Dedup{SimHashThreshold: f.threshold})
	if err != nil {
		return err
	}
	svc, err := api.NewService(ctx, d, db, &api.ServiceOptions{Logger: log})
	if err != nil {
		return err
	}
	recs, err := seen.New(db, &f.seen)
	if err != nil {
		return err
	}
	// A full or failing disk stops the server as Ctrl-C does.
	serveCtx, stopServe := context.WithCancel(ctx)
	defer stopServe()
	h := api.NewHandler(svc, db, api.HandlerOptions{
		Token: f.token, MaxBody: f.maxBody, MaxBatch: f.maxBatch, Logger: log, Seen: recs,
		Console: console.New(serveCtx, console.Options{Store: db, Logger: log}),
	})
	go func() {
		select {
		case <-svc.Stopped():
			log.Error("the store cannot record more documents; stopping", "err", svc.Err())
			stopServe()
		case <-serveCtx.Done():
		}
	}()
	err = api.ListenAndServe(serveCtx, f.addr, h, api.ServerOptions{
		Logger: log,
		OnListen: func(a net.Addr) {
			fmt.Fprintf(stdout, "bloomcrawl serve: %d documents indexed from %s; listening on http://%s/ (Ctrl-C stops)\n", svc.Len(), f.store, a)
		},
	})
	if err != nil {
		return err
	}
	// Every request has finished: close the store before saying so.
	closed = true
	if err := db.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", f.store, err)
	}
	good, dup, failed, invalid := svc.Counts()
	fmt.Fprintf(stdout, "bloomcrawl serve: stopped; answered %d new, %d duplicate, %d failed, %d invalid documents; store %s closed\n", good, dup, failed, invalid, f.store)
	return svc.Err()
}
