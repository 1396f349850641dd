package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/bloomcrawl/bloomcrawl/cluster"
)

// clusterStats prints a cluster crawl's state as the nodes published it
// in Redis (query --cluster URL stats).
func clusterStats(ctx context.Context, url string, asJSON bool, stdout io.Writer) error {
	r, err := cluster.Inspect(ctx, url, "")
	if err != nil {
		return err
	}
	if !asJSON {
		return r.WriteText(stdout)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
