package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// A node's copy of the document log. Every entry the node applied is
// saved to its own store, so that the log in Redis can be trimmed to what
// every live node saved and a node that starts again replays its copy
// instead of the crawl's whole history from Redis. The copy is a sequence
// of chunks (snapchunk.go: packed records, zstd), each keyed by its last
// stream entry's ID (idKey: 16 bytes, big-endian), and a state saying
// which crawl (key prefix and epoch) and up to which entry, written with
// the chunks in one transaction: after a crash the copy ends at an entry,
// never inside a round. Saving happens every lease round (and when a
// transfer brought saveEvery entries), not per page.

// History is where a node keeps its copy of the document log: a
// *storage.DB (storage.DB.AppendDocLog and the others). AppendDocLog
// stores the chunks under their keys and the state, in one write;
// DocLogAfter returns the first chunk whose key sorts after after (nil
// key: none); DocLogState the state written last (nil: none);
// ResetDocLog deletes it all.
type History interface {
	AppendDocLog(keys, chunks [][]byte, state []byte) error
	DocLogAfter(after []byte) (key, chunk []byte, err error)
	DocLogState() ([]byte, error)
	ResetDocLog() error
}

// docCopy is the state of saving and sending a node's copy of the log.
type docCopy struct {
	saveMu  sync.Mutex     // serializes saveDocs
	docs    atomic.Int64   // documents saved
	bytes   atomic.Int64   // their chunks' bytes
	serving atomic.Bool    // sending the history to a node (transfer.go)
	sending sync.WaitGroup // the sender
}

// historyChunkMax is the most packed bytes (before compression) a chunk
// of the copy holds, but for a single larger stream entry: the transfer
// window holds up to windowMax chunks (a variable for tests).
var historyChunkMax = 1 << 20

// saveEvery is the most entries applied and not yet saved before
// DocsApplied saves them at once (a transfer applied quickly).
const saveEvery = 50_000

// idKey is a stream ID as a key that sorts like it.
func idKey(id string) []byte {
	ms, seq := splitID(id)
	k := binary.BigEndian.AppendUint64(nil, ms)
	return binary.BigEndian.AppendUint64(k, seq)
}

// keyID is the stream ID idKey made k from.
func keyID(k []byte) string {
	if len(k) != 16 {
		return ""
	}
	return strconv.FormatUint(binary.BigEndian.Uint64(k[:8]), 10) + "-" + strconv.FormatUint(binary.BigEndian.Uint64(k[8:]), 10)
}

// historyState is the copy's state: which crawl, and its last entry.
func (n *Node) historyState(last string) []byte {
	return []byte("doclog1\n" + n.o.Prefix + "\n" + n.epoch + "\n" + last)
}

// openHistory reads where the node's copy of the log ends (a copy of
// another crawl, or of this one before Redis lost its state, is
// discarded) and publishes it as the node's position, so that the log is
// not trimmed past it while the node catches up. A node without a
// History withdraws the position an earlier run under its name left.
func (n *Node) openHistory(ctx context.Context) error {
	h := n.o.History
	if h == nil {
		if err := n.rdb.HDel(ctx, n.docKey("applied"), n.name).Err(); err != nil {
			return fmt.Errorf("cluster: %w", err)
		}
		return nil
	}
	st, err := h.DocLogState()
	if err != nil {
		return fmt.Errorf("cluster: this node's copy of the document log: %w", err)
	}
	if st != nil {
		f := strings.Split(string(st), "\n")
		if len(f) == 4 && f[0] == "doclog1" && f[1] == n.o.Prefix && f[2] == n.epoch {
			n.docs.saved, n.docs.localLast = f[3], f[3]
		} else {
			crawl := "unreadable"
			if len(f) == 4 {
				crawl = fmt.Sprintf("prefix %s, epoch %s", f[1], f[2])
			}
			n.log.Warn("cluster: this store's copy of the document log is another crawl's: discarded", "its_crawl", crawl, "this_epoch", n.epoch)
			if err := h.ResetDocLog(); err != nil {
				return fmt.Errorf("cluster: discard the copy of another crawl's document log: %w", err)
			}
		}
	}
	n.docs.keeps = true
	pos := n.docs.saved
	if pos == "" {
		pos = "0-0"
	}
	if err := n.rdb.HSet(ctx, n.docKey("applied"), n.name, pos).Err(); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	n.docs.published = pos
	return nil
}

// inLocal says ReadDocs reads after from the node's copy.
func (s *docState) inLocal(after string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.localLast != "" && cmpID(after, s.localLast) < 0
}

// keep notes entries handed out by ReadDocs, to be saved once applied
// (saveDocs): whole stream entries after the last one kept (an entry
// handed out again is kept once).
func (s *docState) keep(es []DocEntry) {
	if len(es) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.keeps {
		return
	}
	last := s.saved
	if len(s.unsaved) > 0 {
		last = s.unsaved[len(s.unsaved)-1].ID
	}
	i := 0
	for i < len(es) && last != "" && cmpID(es[i].ID, last) <= 0 {
		i++
	}
	s.unsaved = append(s.unsaved, es[i:]...)
}

// readLocal reads the chunk of the node's copy after after, up to where
// the copy ended when the node opened.
func (n *Node) readLocal(after string) ([]DocEntry, error) {
	n.docs.mu.Lock()
	end := n.docs.localLast
	n.docs.mu.Unlock()
	k, c, err := n.o.History.DocLogAfter(idKey(after))
	if err != nil {
		return nil, fmt.Errorf("cluster: this node's copy of the document log: %w", err)
	}
	if k == nil {
		return nil, fmt.Errorf("cluster: this node's copy of the document log ends before entry %s, where its state says it ends", end)
	}
	recs, err := decodeChunk(c)
	if err != nil {
		return nil, fmt.Errorf("cluster: this node's copy of the document log: chunk after %s: %w", after, err)
	}
	var out []DocEntry
	for _, e := range recs {
		if cmpID(e.ID, after) > 0 && cmpID(e.ID, end) <= 0 {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cluster: this node's copy of the document log: the chunk after entry %s holds none after it", after)
	}
	return out, nil
}

// saveDocs saves the entries the node applied and has not saved yet to
// its copy of the log, in one write with the last of them (at most
// historyChunkMax packed bytes a chunk).
func (n *Node) saveDocs() error {
	h := n.o.History
	if h == nil {
		return nil
	}
	n.hist.saveMu.Lock()
	defer n.hist.saveMu.Unlock()
	n.docs.mu.Lock()
	k := 0
	for k < len(n.docs.unsaved) && n.docs.applied != "" && cmpID(n.docs.unsaved[k].ID, n.docs.applied) <= 0 {
		k++
	}
	es := n.docs.unsaved[:k:k]
	n.docs.mu.Unlock()
	if k == 0 {
		return nil
	}
	var keys, chunks [][]byte
	var cur []byte
	flush := func(last string) {
		keys = append(keys, idKey(last))
		chunks = append(chunks, encodeChunk(cur))
		cur = nil
	}
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[j].ID == es[i].ID {
			j++
		}
		rec := appendString(nil, es[i].ID)
		rec = appendString(rec, es[i].Node)
		rec = appendString(rec, packDocs(es[i:j]))
		if len(cur) > 0 && len(cur)+len(rec) > historyChunkMax {
			flush(es[i-1].ID)
		}
		cur = append(cur, rec...)
		i = j
	}
	last := es[len(es)-1].ID
	flush(last)
	if err := h.AppendDocLog(keys, chunks, n.historyState(last)); err != nil {
		return fmt.Errorf("cluster: save the document log up to entry %s: %w", last, err)
	}
	n.docs.mu.Lock()
	n.docs.unsaved = append([]DocEntry(nil), n.docs.unsaved[k:]...)
	n.docs.saved = last
	n.docs.mu.Unlock()
	n.hist.docs.Add(int64(len(es)))
	for _, c := range chunks {
		n.hist.bytes.Add(int64(len(c)))
	}
	return nil
}

// trimScript records ARGV[1] as the last entry trimmed and trims the log
// up to it (XTRIM MINID ARGV[2], the ID after it), unless the log was
// trimmed that far already. KEYS: log, the last entry trimmed. Returns
// the entries trimmed.
var trimScript = redis.NewScript(luaCmpID + `
local t = redis.call('GET', KEYS[2])
if t and cmp(ARGV[1], t) <= 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
return redis.call('XTRIM', KEYS[1], 'MINID', ARGV[2])`)

// trimDocs publishes the node's position in the log (the last entry
// saved to its copy), trims the log to the entries every live node has
// saved, and, when serve is set, offers to serve a node that asked for
// the history (transfer.go): one pipeline, and a script when there is
// something to trim. Called every lease round and at Close. A node
// without a History publishes nothing and trims nothing.
func (n *Node) trimDocs(ctx context.Context, serve bool) error {
	if n.o.History == nil {
		return nil
	}
	n.docs.mu.Lock()
	pos, published := n.docs.saved, n.docs.published
	n.docs.mu.Unlock()
	if pos == "" {
		pos = "0-0"
	}
	pipe := n.rdb.Pipeline()
	if pos != published {
		pipe.HSet(ctx, n.docKey("applied"), n.name, pos)
	}
	all := pipe.HGetAll(ctx, n.docKey("applied"))
	live := pipe.ZRange(ctx, n.o.Prefix+":nodes", 0, -1)
	trimmed := pipe.Get(ctx, n.docKey("trimmed"))
	want := pipe.HGetAll(ctx, n.docKey("want"))
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("cluster: document log position: %w", err)
	}
	n.docs.mu.Lock()
	n.docs.published = pos
	if all.Val()[n.name] != pos {
		n.docs.published = "" // not in Redis (lost in a restart): published again next round
	}
	n.docs.mu.Unlock()
	low := ""
	for _, name := range live.Val() {
		a, ok := all.Val()[name]
		if !ok {
			low = "" // a live node that keeps no copy, or has not opened its own yet
			break
		}
		if low == "" || cmpID(a, low) < 0 {
			low = a
		}
	}
	t := trimmed.Val()
	if low != "" && low != "0-0" && (t == "" || cmpID(low, t) > 0) {
		if err := trimScript.Run(ctx, n.rdb, []string{n.docKey("log"), n.docKey("trimmed")}, low, nextID(low)).Err(); err != nil {
			return fmt.Errorf("cluster: trim document log %s: %w", n.docKey("log"), err)
		}
	}
	if len(want.Val()) > 0 {
		// a request of a node no longer live (killed while it waited)
		// is withdrawn; the live ones are offered to serve
		asks := map[string]string{}
		for joiner, after := range want.Val() {
			if joiner == n.name && !n.docs.receiving() {
				// this node's own request, left by a Redis restart that
				// lost its withdrawal
				if err := n.rdb.HDel(ctx, n.docKey("want"), joiner).Err(); err != nil {
					return fmt.Errorf("cluster: withdraw this node's request: %w", err)
				}
			} else if slices.Contains(live.Val(), joiner) {
				asks[joiner] = after
			} else if err := n.rdb.HDel(ctx, n.docKey("want"), joiner).Err(); err != nil {
				return fmt.Errorf("cluster: withdraw the request of node %s: %w", joiner, err)
			}
		}
		if serve && len(asks) > 0 {
			n.offerHistory(ctx, asks)
		}
	}
	return nil
}

// ReadDocHistory returns the documents of a node's copy of the document
// log (h: its store, opened read-only or by the node), in log order: for
// inspection and tests. At most maxDocs documents are returned.
func ReadDocHistory(h History, maxDocs int) ([]DocEntry, error) {
	var out []DocEntry
	var after []byte
	for len(out) < maxDocs {
		k, c, err := h.DocLogAfter(after)
		if err != nil {
			return out, fmt.Errorf("cluster: copy of the document log: %w", err)
		}
		if k == nil {
			break
		}
		es, err := decodeChunk(c)
		if err != nil {
			return out, fmt.Errorf("cluster: copy of the document log: chunk %x: %w", k, err)
		}
		// chunks follow each other: every entry comes after the last
		for _, e := range es {
			if len(out) == 0 || cmpID(e.ID, out[len(out)-1].ID) > 0 || e.ID == out[len(out)-1].ID && e.Index > out[len(out)-1].Index {
				out = append(out, e)
			}
		}
		after = k
	}
	if len(out) > maxDocs {
		out = out[:maxDocs]
	}
	return out, nil
}
