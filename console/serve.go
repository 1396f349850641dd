package console

import (
	"context"
	"log/slog"
	"net"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/seen"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// ServedCrawl is what ServeCrawl serves of a running crawl (a
// *crawler.Crawler): the console's view and steering, its metrics, and
// the document decisions of a cluster node.
type ServedCrawl interface {
	Crawl
	Collectors() []prometheus.Collector
	DecideDocument(ctx context.Context, url, title, text string) (contentdedup.Verdict, error)
}

// ServeOptions configures ServeCrawl. Listener, Dedup and Store are
// required; the zero value of every other field is its default.
type ServeOptions struct {
	// Listener is where the API and the console are served (crawl
	// --serve ADDR, listened on before the crawl starts).
	Listener net.Listener
	// Token is the bearer token every request but /healthz needs ("" =
	// none; api.CheckAddr allows that on loopback only).
	Token string
	// Logger receives the server's lines. nil discards.
	Logger *slog.Logger
	// Dedup and Store are the crawl's deduper and store: the API decides
	// documents with the one and records them in the other, so one
	// process owns the store directory.
	Dedup *contentdedup.Deduper
	Store *storage.DB
	// Seen holds the seen-records the API serves (with seen's defaults):
	// nil means Store; a cluster node passes the cluster's, in Redis.
	Seen seen.Store
	// WARCDir, ClusterURL and ClusterPrefix are the console's (Options).
	// With ClusterURL set, documents submitted to the API are decided
	// through the cluster's document log (ServedCrawl.DecideDocument).
	WARCDir                   string
	ClusterURL, ClusterPrefix string
}

// ServeCrawl prepares serving the HTTP API (package api) and the console
// during a crawl (crawl --serve). start serves them on o.Listener over the
// running crawl c in a goroutine; call it from crawler.Options.Started,
// once the crawl has rebuilt its deduper from the store, so that the API
// never reads a half-rebuilt index. wait stops serving (the console's
// event streams first, then the server, gracefully) and returns the
// server's error, nil if start was never called; call it once Run has
// returned, from the goroutine that ran it.
func ServeCrawl(ctx context.Context, o ServeOptions) (start func(c ServedCrawl), wait func() error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	serveCtx, stopServe := context.WithCancel(ctx)
	done := make(chan error, 1)
	serving := false // set by start, which Run calls before it returns
	start = func(c ServedCrawl) {
		serving = true
		so := &api.ServiceOptions{Restored: true, Logger: log}
		if o.ClusterURL != "" {
			so.Decide = c.DecideDocument // through the cluster's document log
		}
		svc, err := api.NewService(serveCtx, o.Dedup, o.Store, so)
		if err != nil {
			done <- err
			return
		}
		st := o.Seen
		if st == nil {
			st = o.Store
		}
		recs, err := seen.New(st, nil) // seen-records with their defaults
		if err != nil {
			done <- err
			return
		}
		ho := api.HandlerOptions{Token: o.Token, Logger: log, Seen: recs, Collectors: c.Collectors(),
			Console: New(serveCtx, Options{Store: o.Store, Crawl: c, Logger: log, WARCDir: o.WARCDir, ClusterURL: o.ClusterURL, ClusterPrefix: o.ClusterPrefix})}
		h := api.NewHandler(svc, o.Store, ho)
		go func() {
			done <- api.Serve(serveCtx, o.Listener, h, api.ServerOptions{Logger: log, OnListen: func(a net.Addr) {
				log.Info("serving the HTTP API during the crawl", "url", "http://"+a.String()+"/")
			}})
		}()
	}
	wait = func() error {
		stopServe()
		if !serving {
			return nil
		}
		return <-done
	}
	return start, wait
}
