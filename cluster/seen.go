package cluster

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/redis/go-redis/v9"
)

// The seen-state: which URLs the crawl has queued, exactly, at about 9
// bytes of Redis per URL. A URL is a 64-bit fingerprint (xxhash64 of the
// URL) kept as a member of a small Redis set, one of many buckets of its
// partition; a bucket is picked by a second, independent 32-bit hash of
// the URL. Sets of integers stay intset-encoded in Redis (8 bytes a
// member, sorted, binary-searched) as long as they hold at most
// set-max-intset-entries members (512 by default), so a bucket is sized
// to hold about seenFill (300) of them when full.
//
// A partition's buckets come in levels, like a Bloom filter's
// generations: level g has b0·2^g buckets, b0 sized from
// Options.Capacity/Partitions; a URL is added to the newest level (the
// partition's count of URLs queued says which) and looked up in the older
// ones first. A partition that gets far more than its share (one big
// site) adds a level each time its count doubles, so no bucket outgrows
// its intset and an old one is never rewritten.
//
// Two URLs are confused only if they fall in the same partition, the
// same bucket and have the same 64-bit fingerprint: for n URLs in one
// partition about n²/2^(65+log2 buckets) expected confusions, 3·10^-9 at
// 10^9 URLs in one partition with ~2^22 buckets (docs/cluster.md).
//
// Each node also keeps the fingerprints it has sent or learnt in a local
// exact cache (localSeen): a URL reaches Redis at most once per node
// while it stays in the cache, and most links on a page are repeats.

// seenFill is the members a bucket holds when its level is full.
const seenFill = 300

// localSeenMax bounds the node-local cache (entries); when full it is
// cleared, which costs only Redis lookups again, never a URL.
const localSeenMax = 1 << 21

// urlKeys returns url's fingerprint (the set member) and its bucket hash.
func urlKeys(url string) (fp uint64, bucket uint32) {
	fp = xxhash.Sum64String(url)
	d := xxhash.NewWithSeed(0x9e3779b97f4a7c15)
	d.WriteString(url)
	return fp, uint32(d.Sum64())
}

// localSeen is the node's exact cache of fingerprints (with their bucket
// hashes: 96 bits compared) already offered to the cluster.
type localSeen struct {
	mu  sync.Mutex
	m   map[uint64]uint32
	max int
}

// add reports whether (fp, b) is new to the cache, adding it.
func (s *localSeen) add(fp uint64, b uint32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.m[fp]; ok && v == b {
		return false
	}
	if len(s.m) >= s.max {
		clear(s.m)
	}
	s.m[fp] = b
	return true
}

// forget removes fingerprints whose admission failed (they reach Redis
// again next time).
func (s *localSeen) forget(fps []uint64) {
	s.mu.Lock()
	for _, fp := range fps {
		delete(s.m, fp)
	}
	s.mu.Unlock()
}

// seenBuckets0 is b0, the buckets of a partition's first level: a power
// of two holding Capacity/Partitions URLs at seenFill a bucket.
func seenBuckets0(capacity uint64, partitions int) int {
	want := capacity / uint64(partitions) / seenFill
	b := 1
	for uint64(b) < want && b < 1<<20 {
		b <<= 1
	}
	return b
}

// admitScript queues the URLs of one partition not yet seen, in one
// atomic step: each URL's fingerprint is looked up in its bucket of every
// older level (SISMEMBER) and added to its bucket of the newest (SADD);
// one the SADD adds is new, appended to the partition's stream and
// counted. Two nodes offering one URL queue it once.
// KEYS: stream, added counter. ARGV: bucket key prefix
// (PREFIX:{p:N}:s), b0, seenFill, then per URL: fingerprint (signed
// decimal), bucket hash, url, depth, referrer. Returns the positions
// (1-based, in ARGV order) of the URLs queued.
var admitScript = redis.NewScript(`
local prefix, b0, fill = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local added = tonumber(redis.call('GET', KEYS[2]) or '0')
` + seenLua + `
local fresh, out = 0, {}
for i = 4, #ARGV, 5 do
  local fp, bh = ARGV[i], tonumber(ARGV[i+1])
  if not seen(fp, bh, cur - 1) and addSeen(fp, bh) then
    redis.call('XADD', KEYS[1], '*', 'u', ARGV[i+2], 'd', ARGV[i+3], 'r', ARGV[i+4])
    fresh = fresh + 1
    out[fresh] = (i - 4) / 5 + 1
  end
end
if fresh > 0 then redis.call('INCRBY', KEYS[2], fresh) end
return out`)

// seenLua is the seen-state's part of the scripts that read or add
// fingerprints, run with prefix (the bucket key prefix), b0, fill and
// added (the partition's count of URLs queued) set: cur is the newest
// level; seen(fp, bh, upto) looks fp up in its bucket of levels 0 to
// upto; addSeen(fp, bh) adds it to its bucket of the newest level and
// reports whether it was new there (then counting it in added, which
// moves cur on when the level is full).
const seenLua = `
local function cum(g) return b0 * fill * (2^(g+1) - 1) end
local cur = 0
while added >= cum(cur) do cur = cur + 1 end
local function seen(fp, bh, upto)
  for g = 0, upto do
    if redis.call('SISMEMBER', prefix .. g .. ':' .. (bh % (b0 * 2^g)), fp) == 1 then return true end
  end
  return false
end
local function addSeen(fp, bh)
  if redis.call('SADD', prefix .. cur .. ':' .. (bh % (b0 * 2^cur)), fp) == 0 then return false end
  added = added + 1
  if added >= cum(cur) then cur = cur + 1 end
  return true
end
`

// admitArgs appends one URL's arguments for admitScript.
func admitArgs(args []any, it Item, fp uint64, b uint32) []any {
	return append(args, strconv.FormatInt(int64(fp), 10), b, it.URL, it.Depth, it.Referrer)
}

// claimSeenScript marks one URL seen without queueing it (a redirect alias
// recorded with its page): unless a level of its partition's seen-state
// has its fingerprint, it is added to the newest and counted queued and
// done at once. Returns 1 when it was new. KEYS: added counter, acked
// counter. ARGV: bucket key prefix, b0, seenFill, fingerprint, bucket
// hash.
var claimSeenScript = redis.NewScript(`
local prefix, b0, fill = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local added = tonumber(redis.call('GET', KEYS[1]) or '0')
` + seenLua + `
if seen(ARGV[4], tonumber(ARGV[5]), cur - 1) or not addSeen(ARGV[4], tonumber(ARGV[5])) then return 0 end
redis.call('INCR', KEYS[1])
redis.call('INCR', KEYS[2])
return 1`)

// Claim marks url seen cluster-wide without queueing it, as done (a
// redirect alias of a page this node is about to store): true when no
// node had queued or claimed it, so that the caller records it; false
// when it was seen (it is, or was, queued: its fetch maps it to the
// page's document through the document log). One round trip, unless this
// node offered url before.
func (n *Node) Claim(ctx context.Context, url string) (bool, error) {
	h, err := urlHost(url)
	if err != nil {
		return false, fmt.Errorf("cluster: claim %q: %w", url, err)
	}
	fp, b := urlKeys(url)
	if !n.local.add(fp, b) {
		return false, nil
	}
	p := n.Partition(h)
	fresh, err := claimSeenScript.Run(ctx, n.rdb, []string{n.key(p, "added"), n.key(p, "acked")}, n.key(p, "s"), n.b0, seenFill, signedFP(fp), b).Int()
	if err != nil {
		n.local.forget([]uint64{fp})
		return false, fmt.Errorf("cluster: claim %q: %w", url, err)
	}
	if fresh == 1 {
		n.journalClaim(p, url)
	}
	return fresh == 1, nil
}
