package crawler

import (
	"context"
	"errors"
	"fmt"

	"github.com/bloomcrawl/bloomcrawl/contentdedup"
)

// DecideDocument decides a document submitted outside the crawl (crawl
// --serve's POST /v1/docid: url canonical, title and text) the way the
// crawl decides its pages. On a cluster node it goes through the
// cluster's document log, like a crawled page: appended, replayed in log
// order by every node, so a document submitted on one node and its
// near-duplicate crawled or submitted on another share one docId, and
// every node's index stays the same. It is for cluster nodes (the local
// crawl's API decides with the deduper directly) and errors without the
// document log. Safe for concurrent use with Run (once Run has called
// Options.Started).
func (c *Crawler) DecideDocument(ctx context.Context, url, title, text string) (contentdedup.Verdict, error) {
	d, ok := c.docs.(*redisDocs)
	if !ok {
		return contentdedup.Verdict{}, errors.New("crawler: DecideDocument: not a cluster node")
	}
	sig, sim := d.dd.Prepare(title, text)
	v, _, err := d.cd.check(ctx, url, "", sig, sim, nil)
	if err != nil {
		return v, fmt.Errorf("crawler: document %s: %w", url, err)
	}
	return v, nil
}
