package main

import (
	"context"
	"io"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/internal/cli"
)

// clusterStats prints a cluster crawl's state as the nodes published it
// in Redis (query --cluster URL stats); sub is the query subcommand, store
// its --store.
func clusterStats(ctx context.Context, url, sub, store string, args []string, asJSON bool, stdout io.Writer) error {
	switch {
	case sub != "stats":
		return usagef("--cluster works with the stats subcommand only (the pages are in each node's --store)")
	case store != "":
		return usagef("give --cluster or --store, not both")
	}
	if err := wantArgs(args, 0, ""); err != nil {
		return err
	}
	r, err := cluster.Inspect(ctx, url, "")
	if err != nil {
		return err
	}
	if !asJSON {
		return r.WriteText(stdout)
	}
	return cli.WriteJSON(stdout, r)
}
