package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// WARCDigests is the cluster-wide map of WARC payload digests (package
// archive's SharedDigests): one Redis string per digest,
// PREFIX:warc:digest:DIGEST, holding the reference (record ID, target URI,
// date, as package archive encodes it) of the response record that holds
// the payload, written by whichever node claimed the digest first. A node
// that fetches a byte-identical payload writes a revisit record referring
// to it. The keys do not expire: they live as long as the crawl's other
// keys. Safe for concurrent use.
type WARCDigests struct {
	rdb    redis.UniversalClient
	prefix string
}

// WARCDigests returns the payload-digest map on the node's Redis.
func (n *Node) WARCDigests() *WARCDigests { return &WARCDigests{rdb: n.rdb, prefix: n.o.Prefix} }

func (d *WARCDigests) key(digest string) string { return d.prefix + ":warc:digest:" + digest }

// ClaimDigest stores ref under digest unless a value is there, and
// returns the value found (nil: ref was stored). One round trip (SET NX
// GET).
func (d *WARCDigests) ClaimDigest(ctx context.Context, digest string, ref []byte) ([]byte, error) {
	old, err := d.rdb.SetArgs(ctx, d.key(digest), ref, redis.SetArgs{Mode: "NX", Get: true}).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: WARC digest %s: %w", d.key(digest), err)
	}
	return old, nil
}

// dropDigestScript deletes KEYS[1] if it still holds ARGV[1].
var dropDigestScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

// DropDigest removes digest's value if it is still ref (a claimed
// response that was not written).
func (d *WARCDigests) DropDigest(ctx context.Context, digest string, ref []byte) error {
	if err := dropDigestScript.Run(ctx, d.rdb, []string{d.key(digest)}, ref).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("cluster: WARC digest %s: %w", d.key(digest), err)
	}
	return nil
}
