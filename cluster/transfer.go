package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// A node whose copy of the document log ends before the entries trimmed
// from the log (one on an empty store, or one that was down while the
// others trimmed) gets the missing history from a live node, through
// Redis. It asks (hash PREFIX:{docs}:want: its name → the entry after
// which it needs the log); a node that keeps a copy, has saved at least
// up to the last entry trimmed, and finds the request in its lease round
// claims it (PREFIX:{docs}:xfer:NAME:by, SET NX, its TTL renewed while
// it sends) and sends its copy's chunks from that entry on through the
// list PREFIX:{docs}:xfer:NAME, a window of at most windowMax chunks (at
// most historyChunkMax packed bytes each, compressed) with a TTL: the
// sender waits while the window is full, the joiner pops and applies.
// The last item names the entry the chunks cover up to (the sender's
// copy's end when it claimed); the joiner then reads the log on from
// there. Meanwhile the joiner is a live node whose position (the entries
// it saved) holds the trim back, so the log after what the transfer
// covers is still there when it ends. The joiner deletes the keys when
// the transfer ends; Redis holds nothing of it afterwards.
//
// Items: "c", the last entry of the chunk before (or the entry asked
// after), a newline and a chunk (encodeChunk); "e" and the entry covered
// up to; or "x" and why the sender stopped. The joiner takes a chunk only
// if it follows what it has: a chunk Redis lost in a restart (the sender
// pushes on to the restarted Redis) ends the transfer, and the joiner
// asks again from where it is.

// transfer is the history a node is receiving.
type transfer struct {
	after   string    // the entry after which it was asked
	trimmed string    // the last entry trimmed then
	since   time.Time // when it was asked
	server  string    // the node sending ("" until one claimed it)
	last    time.Time // when the last item came
	docs    int       // documents received
}

// windowMax is the most chunks waiting in a transfer's list.
const windowMax = 4

// claimWait is how long a node waits for a live node to claim its
// request for the history before it gives up: two lease TTLs (each live
// node looks every LeaseTTL/3) and 5 s.
func (n *Node) claimWait() time.Duration { return 2*n.o.LeaseTTL + 5*time.Second }

// xferIdle is how long either side of a transfer waits for the other
// (the joiner for an item, the sender for room in the window), and the
// TTL of the transfer's keys.
func (n *Node) xferIdle() time.Duration { return max(30*time.Second, 2*n.o.LeaseTTL) }

func (n *Node) xferKey(joiner, kind string) string {
	k := n.docKey("xfer:" + joiner)
	if kind != "" {
		k += ":" + kind
	}
	return k
}

// receiving says a transfer is under way.
func (s *docState) receiving() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.xfer != nil
}

// requestHistory asks the live nodes for the log's history after after
// (trimmed is the last entry trimmed).
func (n *Node) requestHistory(ctx context.Context, after, trimmed string) error {
	pipe := n.rdb.Pipeline()
	pipe.Del(ctx, n.xferKey(n.name, ""), n.xferKey(n.name, "by"))
	pipe.HSet(ctx, n.docKey("want"), n.name, after)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("cluster: ask for the document log's history: %w", err)
	}
	now := time.Now()
	n.docs.mu.Lock()
	n.docs.xfer = &transfer{after: after, trimmed: trimmed, since: now, last: now}
	n.docs.mu.Unlock()
	n.log.Info("cluster: the document log was trimmed past this node's copy: asking a live node for its history", "after", after, "trimmed_to", trimmed)
	return nil
}

// endTransfer deletes the transfer's keys and forgets it.
func (n *Node) endTransfer(ctx context.Context) {
	pipe := n.rdb.Pipeline()
	pipe.Del(ctx, n.xferKey(n.name, ""), n.xferKey(n.name, "by"))
	pipe.HDel(ctx, n.docKey("want"), n.name)
	pipe.Exec(ctx) // best effort: the keys expire (xferIdle), the request is asked again or withdrawn at Close
	n.docs.mu.Lock()
	n.docs.xfer = nil
	n.docs.mu.Unlock()
}

// NoPeerError is the error of a node that needs the document log's
// history and found no live node to send it.
type NoPeerError struct {
	Log            string        // the log's key
	After, Trimmed string        // where the node's copy ends, and the last entry trimmed
	Waited         time.Duration // how long it waited
}

func (e *NoPeerError) Error() string {
	copyEnd := "this node has no copy of it (an empty store)"
	if e.After != "0-0" {
		copyEnd = "this node's copy ends at entry " + e.After
	}
	return fmt.Sprintf("cluster: the document log %s was trimmed up to entry %s, %s, and no live node sent its history within %s: "+
		"start a node that has this crawl's store (its copy of the log) and then this node again, or start all nodes of the crawl together on their stores "+
		"(docs/cluster.md, \"Near-duplicates across nodes: the document log\")", e.Log, e.Trimmed, copyEnd, e.Waited.Round(time.Second))
}

// receive returns the documents after after of the next chunk the
// transfer brings, or nil when it ended (ReadDocs then reads the log on,
// and asks again if it still is trimmed past what came). It fails with a
// *NoPeerError when no live node claimed the request within claimWait.
func (n *Node) receive(ctx context.Context, after string) ([]DocEntry, error) {
	n.docs.mu.Lock()
	x := n.docs.xfer
	n.docs.mu.Unlock()
	list, by := n.xferKey(n.name, ""), n.xferKey(n.name, "by")
	for {
		res, err := n.rdb.BLPop(ctx, time.Second, list).Result()
		now := time.Now()
		if errors.Is(err, redis.Nil) {
			if x.server == "" {
				s, err := n.rdb.Get(ctx, by).Result()
				switch {
				case err == nil:
					x.server, x.last = s, now
				case !errors.Is(err, redis.Nil):
					return nil, fmt.Errorf("cluster: document log history: %w", err)
				case now.Sub(x.since) >= n.claimWait():
					n.endTransfer(context.WithoutCancel(ctx))
					return nil, &NoPeerError{Log: n.docKey("log"), After: x.after, Trimmed: x.trimmed, Waited: now.Sub(x.since)}
				default:
					// the request again, if a Redis restart lost it
					if err := n.rdb.HSetNX(ctx, n.docKey("want"), n.name, x.after).Err(); err != nil {
						return nil, fmt.Errorf("cluster: ask for the document log's history: %w", err)
					}
				}
				continue
			}
			if now.Sub(x.last) >= n.xferIdle() {
				n.log.Warn("cluster: the node sending the document log's history stopped: asking again", "node", x.server, "idle", now.Sub(x.last).String())
				n.endTransfer(context.WithoutCancel(ctx))
				return nil, nil
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cluster: document log history from %s: %w", list, err)
		}
		x.last = now
		if x.server == "" {
			x.server = "?"
		}
		item := []byte(res[1])
		switch {
		case len(item) > 0 && item[0] == 'c':
			nl := bytes.IndexByte(item, '\n')
			if nl < 0 {
				return nil, fmt.Errorf("cluster: document log history from node %s: a chunk item with no newline", x.server)
			}
			if prev := string(item[1:nl]); cmpID(prev, after) > 0 {
				n.log.Warn("cluster: a chunk of the document log's history did not come (Redis restarted?): asking again", "node", x.server, "have_up_to", after, "chunk_after", prev)
				n.endTransfer(context.WithoutCancel(ctx))
				return nil, nil
			}
			recs, err := decodeChunk(item[nl+1:])
			if err != nil {
				return nil, fmt.Errorf("cluster: document log history from node %s: %w", x.server, err)
			}
			var out []DocEntry
			for _, e := range recs {
				if cmpID(e.ID, after) > 0 {
					out = append(out, e)
				}
			}
			x.docs += len(out)
			if len(out) > 0 {
				return out, nil
			}
		case len(item) > 0 && item[0] == 'e':
			n.log.Info("cluster: document log history received", "from", x.server, "documents", x.docs, "up_to", string(item[1:]), "took", now.Sub(x.since).String())
			n.endTransfer(context.WithoutCancel(ctx))
			return nil, nil
		case len(item) > 0 && item[0] == 'x':
			n.log.Warn("cluster: the node sending the document log's history stopped: asking again", "node", x.server, "reason", string(item[1:]))
			n.endTransfer(context.WithoutCancel(ctx))
			return nil, nil
		default:
			return nil, fmt.Errorf("cluster: document log history from node %s: an item of %d bytes that is no chunk", x.server, len(item))
		}
	}
}

// claimScript claims a node's request for the history, for ARGV[2]
// whose copy ends at ARGV[3], if that copy reaches the last entry
// trimmed. KEYS: requests, the claim, the last entry trimmed. ARGV:
// joiner, sender, its copy's end, TTL ms. Returns the entry after which
// the joiner needs the log, or nil.
var claimScript = redis.NewScript(luaCmpID + `
local after = redis.call('HGET', KEYS[1], ARGV[1])
if not after then return false end
local t = redis.call('GET', KEYS[3])
if t and cmp(ARGV[3], t) < 0 then return false end
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[4]) then return false end
return after`)

// pushScript adds ARGV[4] to a transfer's window if the transfer is
// still ARGV[1]'s and the window has room (fewer than ARGV[2] items),
// and renews the keys' TTL (ARGV[3] ms). KEYS: window, claim. Returns 1,
// 0 (full) or -1 (the claim is gone: the joiner ended the transfer).
var pushScript = redis.NewScript(`
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1`)

// offerHistory claims one of the requests for the history (want: joiner
// → the entry after which it needs the log) and sends it in a goroutine
// (one at a time per node), if this node keeps a copy.
func (n *Node) offerHistory(ctx context.Context, want map[string]string) {
	if n.o.History == nil || !n.hist.serving.CompareAndSwap(false, true) {
		return
	}
	n.docs.mu.Lock()
	end := n.docs.saved
	n.docs.mu.Unlock()
	if end == "" {
		n.hist.serving.Store(false)
		return
	}
	for joiner := range want {
		if joiner == n.name {
			continue
		}
		after, err := claimScript.Run(ctx, n.rdb, []string{n.docKey("want"), n.xferKey(joiner, "by"), n.docKey("trimmed")},
			joiner, n.name, end, n.xferIdle().Milliseconds()).Text()
		if err != nil {
			continue // redis.Nil: not claimed (another node did, or this copy is behind the trim)
		}
		n.hist.sending.Add(1)
		go n.sendHistory(joiner, after, end)
		return
	}
	n.hist.serving.Store(false)
}

// sendHistory sends this node's copy of the log after after, up to end,
// to joiner through its transfer's window. It stops when the node
// closes.
func (n *Node) sendHistory(joiner, after, end string) {
	defer n.hist.sending.Done()
	defer n.hist.serving.Store(false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-n.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	start := time.Now()
	n.log.Info("cluster: sending the document log's history", "to", joiner, "after", after, "up_to", end)
	key, endKey := idKey(after), idKey(end)
	prev := after // the last entry of the chunk sent before
	chunks, size := 0, 0
	for {
		k, c, err := n.o.History.DocLogAfter(key)
		if err == nil && k == nil {
			err = fmt.Errorf("this node's copy ends before entry %s", end)
		}
		if err != nil {
			n.log.Warn("cluster: send the document log's history", "to", joiner, "error", err.Error())
			n.push(ctx, joiner, []byte("x"+n.name+": "+err.Error()), windowMax+1)
			return
		}
		if bytes.Compare(k, endKey) > 0 {
			break
		}
		if err := n.push(ctx, joiner, append([]byte("c"+prev+"\n"), c...), windowMax); err != nil {
			n.log.Warn("cluster: send the document log's history", "to", joiner, "error", err.Error())
			if ctx.Err() != nil {
				// this node is closing: the joiner asks again at once
				bye, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				n.push(bye, joiner, []byte("x"+n.name+" is stopping"), windowMax+1)
				cancel()
			}
			return
		}
		chunks, size = chunks+1, size+len(c)
		if bytes.Equal(k, endKey) {
			break
		}
		key, prev = k, keyID(k)
	}
	if err := n.push(ctx, joiner, []byte("e"+end), windowMax); err != nil {
		n.log.Warn("cluster: send the document log's history", "to", joiner, "error", err.Error())
		return
	}
	n.log.Info("cluster: document log history sent", "to", joiner, "chunks", chunks, "bytes", size, "took", time.Since(start).String())
}

// push adds item to joiner's transfer window, waiting while it holds
// room items or more (at most xferIdle): windowMax for the chunks and the
// end, one more for a sender's farewell.
func (n *Node) push(ctx context.Context, joiner string, item []byte, room int) error {
	keys := []string{n.xferKey(joiner, ""), n.xferKey(joiner, "by")}
	deadline := time.Now().Add(n.xferIdle())
	for {
		r, err := pushScript.Run(ctx, n.rdb, keys, n.name, room, n.xferIdle().Milliseconds(), item).Int()
		if err != nil {
			return fmt.Errorf("push to %s: %w", keys[0], err)
		}
		switch r {
		case 1:
			return nil
		case -1:
			return fmt.Errorf("node %s ended the transfer", joiner)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %s took nothing from %s for %s", joiner, keys[0], n.xferIdle())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
