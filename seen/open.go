package seen

import (
	"context"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

// OpenStore opens the Store that holds the seen-records of the store
// directory dir (a *storage.DB, Badger, created if missing), or, when
// clusterURL is set, the records in the Redis of a cluster crawl at
// clusterURL (a *cluster.SeenStore, shared by the cluster's nodes; dir is
// then not used). The function it returns closes the Store.
func OpenStore(ctx context.Context, dir, clusterURL string) (Store, func() error, error) {
	if clusterURL != "" {
		rs, err := cluster.OpenSeenStore(ctx, clusterURL, "")
		if err != nil {
			return nil, nil, err
		}
		return rs, rs.Close, nil
	}
	db, err := storage.Open(dir, nil)
	if err != nil {
		return nil, nil, err
	}
	return db, db.Close, nil
}
