package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/bloomcrawl/bloomcrawl/lab/bench"
)

func init() {
	register(command{
		Name:    "colly",
		Summary: "the bare Colly crawler that crawl compares against (--tools bloomcrawl,wget,colly --tool 'colly=PATH/bloomcrawl-lab colly {seed}')",
		Run:     runColly,
	})
}

// runColly is the textbook Colly crawler 'go run ./cmd/bloomcrawl-lab crawl' compares
// against (--tools bloomcrawl,wget,colly --tool 'colly=bloomcrawl-lab colly
// {seed}'): Async, colly's in-memory visited set, no storage, links followed
// as written (fragments included), robots.txt ignored, the seed's host only.
// It stops itself past --max-rss-mb of anonymous memory or --timeout, so it
// cannot eat the machine, and says so on stdout ("stopped: ...", exit 3).
func runColly(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("colly", flag.ContinueOnError)
	fs.SetOutput(stderr)
	parallelism := fs.Int("concurrency", 16, "Colly's parallelism")
	maxRSS := fs.Int64("max-rss-mb", 1024, "stop when RssAnon passes this many MB")
	limit := fs.Duration("timeout", 2*time.Minute, "stop after this long")
	if err := fs.Parse(args); err != nil {
		return usagef("%v", err)
	}
	if fs.NArg() != 1 {
		return usagef("want one seed URL")
	}
	seed := fs.Arg(0)
	u, err := url.Parse(seed)
	if err != nil || u.Host == "" {
		return usagef("seed %q: not an absolute URL", seed)
	}
	c := colly.NewCollector(colly.Async(true), colly.IgnoreRobotsTxt(), colly.AllowedDomains(u.Hostname()))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: *parallelism}); err != nil {
		return err
	}
	var pages atomic.Int64
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	c.OnResponse(func(*colly.Response) { pages.Add(1) })
	var once sync.Once
	stop := func(why string) {
		once.Do(func() {
			fmt.Fprintf(stdout, "stopped: %s after %d responses\n", why, pages.Load())
			os.Exit(3)
		})
	}
	go func() {
		deadline := time.Now().Add(*limit)
		for range time.Tick(100 * time.Millisecond) {
			if rss, err := bench.RssAnon(os.Getpid()); err == nil && rss > *maxRSS<<20 {
				stop(fmt.Sprintf("RssAnon %d MB over the cap", rss>>20))
			}
			if time.Now().After(deadline) {
				stop("time limit " + limit.String())
			}
			if ctx.Err() != nil {
				stop("interrupted")
			}
		}
	}()
	if err := c.Visit(seed); err != nil {
		return err
	}
	c.Wait()
	fmt.Fprintf(stdout, "done: %d responses\n", pages.Load())
	return nil
}
