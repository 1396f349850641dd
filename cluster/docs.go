package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// The document log orders the content-dedup decisions of the whole crawl.
// Every page a node judges is appended to one Redis stream (key
// PREFIX:{docs}:log) with what the decision needs: its URL, its declared
// canonical URL, its signature (fingerprints and sketch, opaque here) and
// its redirect aliases. The log's order is the order in which the crawl
// decides: each node replays every entry, its own and the others', in
// log order through its own content deduper, so all nodes hold the same
// index and reach the same verdict for every entry: the first of two
// near-duplicates in the log is the document, the second its duplicate,
// whichever nodes fetched them and however their requests interleaved.
//
// A node's documents are appended by its group commit (commit.go): one
// stream entry holds all the documents of a round (field n: the node,
// field d: the documents packed), and the same pipeline reads the log on
// from where the node last read, so replaying costs no round trip of its
// own.
//
// The log is bounded: each node records the last entry it applied (hash
// PREFIX:{docs}:applied, every lease round); a node trims the entries
// every live node has applied (XTRIM MINID) after appending them, packed,
// to the snapshot (strings PREFIX:{docs}:snap:K; PREFIX:{docs}:snapid is
// its last entry), in one script. A node that starts (late, or on an
// empty store) reads the snapshot and then the log's tail (ReadDocs does
// both, each reply atomic). The snapshot is a sequence of strings
// (PREFIX:{docs}:snap:K, K < PREFIX:{docs}:snap), each written once,
// compressed (snapchunk.go), holding up to snapChunkMax packed bytes.

// DocEntry is one page's entry in the document log.
type DocEntry struct {
	ID        string   // stream entry ID, assigned by Redis: the log's order
	Index     int      // the document's place in its stream entry
	Node      string   // the node that fetched the page
	URL       string   // the page's URL
	Canonical string   // the canonical URL it declares ("" for none)
	Sig       []byte   // its content-dedup signature (opaque to this package)
	Aliases   []string // the redirect chain's other URLs, to map to its document
	// Was is the ID the entry was first logged under when a Redis that
	// lost it had it appended anew (journal.go; "" otherwise)
	Was string
}

// DocRef names a logged document: its stream entry and index there.
type DocRef struct {
	ID    string
	Index int
}

// Is reports whether e is the document r names.
func (r DocRef) Is(e DocEntry) bool { return (e.ID == r.ID || e.Was == r.ID) && e.Index == r.Index }

func (n *Node) docKey(kind string) string { return n.o.Prefix + ":{docs}:" + kind }

// docBatch is the most stream entries one read of the log returns.
const docBatch = 10_000

// snapChunk is the most snapshot bytes one read returns.
const snapChunk = 4 << 20

// docState is the node's read position in the log: entries the group
// commit read back and not yet handed out by ReadDocs (contiguous after
// from), and the last entry the node applied (published every lease
// round).
type docState struct {
	mu        sync.Mutex
	batch     int
	started   bool       // a ReadDocs reached the log's end: from is known
	from      string     // the entry before buf[0]
	buf       []DocEntry // entries after from, in order
	applied   string     // last entry applied (DocsApplied)
	published string     // applied as last written to Redis
	snapAt    string     // the snapshot entry read last (ReadDocs), the last of its chunk
	snapChunk int64      // the chunk after it
}

// fetchFrom is where the group commit reads the log on from.
func (s *docState) fetchFrom() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		return "", false
	}
	if len(s.buf) > 0 {
		return s.buf[len(s.buf)-1].ID, true
	}
	return s.from, true
}

// buffered keeps entries a round read back.
func (s *docState) buffered(msgs []redis.XMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.from
	if len(s.buf) > 0 {
		last = s.buf[len(s.buf)-1].ID
	}
	for _, m := range msgs {
		if cmpID(m.ID, last) <= 0 {
			continue
		}
		s.buf = append(s.buf, docMessage(m.ID, m.Values)...)
		last = m.ID
	}
}

// fromBuffer hands out up to limit stream entries after after from the
// buffer, if it holds the entries right after after.
func (s *docState) fromBuffer(after string, limit int) ([]DocEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || cmpID(s.from, after) > 0 {
		return nil, false
	}
	i := 0
	for i < len(s.buf) && cmpID(s.buf[i].ID, after) <= 0 {
		i++
	}
	s.buf = s.buf[i:]
	s.from = after
	if len(s.buf) == 0 {
		return nil, false
	}
	j, entries := 0, 0
	for j < len(s.buf) {
		if j == 0 || s.buf[j].ID != s.buf[j-1].ID {
			if entries == limit {
				break
			}
			entries++
		}
		j++
	}
	out := s.buf[:j:j]
	s.buf = s.buf[j:]
	s.from = out[len(out)-1].ID
	return out, true
}

// CheckDocParams records params (the content-dedup options that decide
// verdicts) as the crawl's, or checks that they equal the ones recorded
// by the first node: nodes deciding by different rules would replay the
// log to different verdicts.
func (n *Node) CheckDocParams(ctx context.Context, params string) error {
	key := n.docKey("params")
	if err := n.rdb.SetNX(ctx, key, params, 0).Err(); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	got, err := n.rdb.Get(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if got != params {
		return fmt.Errorf("cluster: this node's content-dedup options %q differ from the crawl's %q (key %s): use the same dedup section on every node", params, got, key)
	}
	return nil
}

// AppendDoc appends e (its ID, Index and Node are set here) to the
// document log in the node's next group-commit round and returns where it
// was logged. The caller replays the log (ReadDocs) up to it for its
// verdict: the round read the log on, so the entries are usually there
// without another round trip.
func (n *Node) AppendDoc(ctx context.Context, e DocEntry) (DocRef, error) {
	e.Node = n.name
	d := &docReq{e: e, p: &Pending{done: make(chan struct{})}}
	if err := n.enqueue(func() { n.c.docs = append(n.c.docs, d) }); err != nil {
		return DocRef{}, err
	}
	if _, err := d.p.Wait(ctx); err != nil {
		return DocRef{}, err
	}
	return d.ref, nil
}

// DocsApplied records the last log entry this node applied: published
// every lease round, it lets the log be trimmed up to the entries every
// live node applied.
func (n *Node) DocsApplied(id string) {
	n.docs.mu.Lock()
	n.docs.applied = id
	n.docs.mu.Unlock()
}

// readDocsScript reads the document log after ARGV[1] (up to ARGV[2]
// stream entries) or, when that part is trimmed, the snapshot: chunk
// ARGV[3] from byte ARGV[4] (up to ARGV[5] bytes), in one atomic step.
// KEYS: log, snapshot's last ID, its chunk count; chunk k is the key
// KEYS[3] .. ':' .. k (same slot). Returns {'x', entries} or {'s', bytes,
// chunk length, chunk count}.
var readDocsScript = redis.NewScript(`
local function cmp(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  if am ~= bm then return am < bm and -1 or 1 end
  if as ~= bs then return as < bs and -1 or 1 end
  return 0
end
local snapid = redis.call('GET', KEYS[2])
if snapid and cmp(ARGV[1], snapid) < 0 then
  local key, pos = KEYS[3] .. ':' .. ARGV[3], tonumber(ARGV[4])
  return {'s', redis.call('GETRANGE', key, pos, pos + tonumber(ARGV[5]) - 1), redis.call('STRLEN', key),
    tonumber(redis.call('GET', KEYS[3]) or '0')}
end
return {'x', redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])}`)

// ReadDocs returns the document log's entries after the stream entry
// after ("" for the log's start), in log order: up to limit stream
// entries (every document of each), fewer meaning the end of the log for
// now. Entries a group-commit round read back are handed out without a
// round trip; entries trimmed from the log are read from the snapshot
// (then more than limit may come back at once).
func (n *Node) ReadDocs(ctx context.Context, after string, limit int) ([]DocEntry, error) {
	if after == "" {
		after = "0-0"
	}
	if out, ok := n.docs.fromBuffer(after, limit); ok {
		return out, nil
	}
	n.docs.mu.Lock()
	chunk := int64(0)
	if n.docs.snapAt == after {
		chunk = n.docs.snapChunk // the chunk after the one that ended at after
	}
	n.docs.mu.Unlock()
	var buf []byte // the chunk read so far
	for {
		pos := int64(len(buf))
		res, err := readDocsScript.Run(ctx, n.rdb, []string{n.docKey("log"), n.docKey("snapid"), n.docKey("snap")}, after, limit, chunk, pos, snapChunk).Slice()
		if err != nil {
			return nil, fmt.Errorf("cluster: read document log %s: %w", n.docKey("log"), err)
		}
		if len(res) >= 2 && res[0] == "x" {
			return n.logEntries(after, limit, res[1])
		}
		if len(res) != 4 || res[0] != "s" {
			return nil, fmt.Errorf("cluster: read document log %s: reply %v", n.docKey("log"), res)
		}
		data, _ := res[1].(string)
		chunkLen, _ := res[2].(int64)
		chunks, _ := res[3].(int64)
		if chunk >= chunks || chunkLen == 0 {
			return nil, fmt.Errorf("cluster: document snapshot %s: entry %s not found (chunk %d of %d)", n.docKey("snap"), after, chunk, chunks)
		}
		buf = append(buf, data...)
		if int64(len(buf)) < chunkLen {
			continue // the rest of the chunk (snapChunk bytes a read)
		}
		recs, err := decodeChunk(buf)
		if err != nil || len(recs) == 0 {
			return nil, fmt.Errorf("cluster: document snapshot %s: chunk %d: %v", n.docKey("snap"), chunk, err)
		}
		buf = nil
		chunk++
		var out []DocEntry
		for _, e := range recs {
			if cmpID(e.ID, after) > 0 {
				out = append(out, e)
			}
		}
		n.docs.mu.Lock()
		n.docs.snapAt, n.docs.snapChunk = recs[len(recs)-1].ID, chunk
		n.docs.mu.Unlock()
		if len(out) > 0 {
			return out, nil
		}
	}
}

// logEntries decodes a readDocsScript reply of log entries (read after
// after, at most limit) and notes the log's end when it was reached.
func (n *Node) logEntries(after string, limit int, reply any) ([]DocEntry, error) {
	raw, _ := reply.([]any)
	var out []DocEntry
	for _, r := range raw {
		pair, ok := r.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("cluster: read document log %s: malformed entry %v", n.docKey("log"), r)
		}
		id, _ := pair[0].(string)
		kv, _ := pair[1].([]any)
		vals := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			vals[k] = kv[i+1]
		}
		out = append(out, docMessage(id, vals)...)
		n.journalDocs([]redis.XMessage{{ID: id, Values: vals}})
	}
	if len(raw) < limit {
		last := after
		if len(out) > 0 {
			last = out[len(out)-1].ID
		}
		n.docs.mu.Lock()
		if !n.docs.started || len(n.docs.buf) == 0 && cmpID(last, n.docs.from) > 0 {
			n.docs.started, n.docs.from = true, last
		}
		n.docs.mu.Unlock()
	}
	return out, nil
}

// snapScript moves log entries into the snapshot: if the snapshot ends at
// ARGV[1] ("" for none), it writes ARGV[4…] (the entries up to ARGV[2],
// packed and compressed: encodeChunk) as its next chunks, records ARGV[2]
// as its end and trims the log below ARGV[3] (the ID after ARGV[2]). KEYS:
// log, snapshot's last ID, its chunk count (chunk k: KEYS[3] .. ':' .. k).
// Returns 1, or 0 when another node moved them first.
var snapScript = redis.NewScript(`
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
local n = tonumber(redis.call('GET', KEYS[3]) or '0')
for i = 4, #ARGV do
  redis.call('SET', KEYS[3] .. ':' .. n, ARGV[i])
  n = n + 1
end
redis.call('SET', KEYS[3], n)
redis.call('SET', KEYS[2], ARGV[2])
redis.call('XTRIM', KEYS[1], 'MINID', ARGV[3])
return 1`)

// snapChunkMax is the most packed bytes (before compression) a snapshot
// chunk holds, but for a single larger record (a variable for tests).
var snapChunkMax = 8 << 20

// trimDocs publishes the node's applied position and moves the entries
// every live node has applied from the log to the snapshot (at most
// docBatch stream entries a call; called every lease round and at Close).
// moved says it moved some.
func (n *Node) trimDocs(ctx context.Context) (moved bool, err error) {
	n.docs.mu.Lock()
	applied, published := n.docs.applied, n.docs.published
	n.docs.mu.Unlock()
	if applied == "" {
		return false, nil // this node keeps no document log
	}
	if applied != published {
		if err := n.rdb.HSet(ctx, n.docKey("applied"), n.name, applied).Err(); err != nil {
			return false, fmt.Errorf("cluster: %w", err)
		}
		n.docs.mu.Lock()
		n.docs.published = applied
		n.docs.mu.Unlock()
	}
	all, err := n.rdb.HGetAll(ctx, n.docKey("applied")).Result()
	if err != nil {
		return false, fmt.Errorf("cluster: %w", err)
	}
	live, err := n.rdb.ZRange(ctx, n.o.Prefix+":nodes", 0, -1).Result()
	if err != nil {
		return false, fmt.Errorf("cluster: %w", err)
	}
	low := ""
	for _, name := range live {
		a, ok := all[name]
		if !ok {
			return false, nil // a live node that has not applied anything yet (catching up)
		}
		if low == "" || cmpID(a, low) < 0 {
			low = a
		}
	}
	snapid, err := n.rdb.Get(ctx, n.docKey("snapid")).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return false, fmt.Errorf("cluster: %w", err)
	}
	from := snapid
	if from == "" {
		from = "0-0"
	}
	if low == "" || cmpID(low, from) <= 0 {
		return false, nil
	}
	msgs, err := n.rdb.XRangeN(ctx, n.docKey("log"), "("+from, low, docBatch).Result()
	if err != nil || len(msgs) == 0 {
		return false, err
	}
	recs := make([][]byte, len(msgs))
	for i, m := range msgs {
		node, _ := m.Values["n"].(string)
		d, _ := m.Values["d"].(string)
		b := appendString(nil, m.ID)
		b = appendString(b, node)
		recs[i] = appendString(b, d)
	}
	last := msgs[len(msgs)-1].ID
	args := []any{snapid, last, nextID(last)}
	for _, piece := range splitRecords(recs, snapChunkMax) {
		args = append(args, encodeChunk(piece))
	}
	ok, err := snapScript.Run(ctx, n.rdb, []string{n.docKey("log"), n.docKey("snapid"), n.docKey("snap")}, args...).Int()
	return ok == 1, err
}

// cmpID compares two stream IDs (MS-SEQ).
func cmpID(a, b string) int {
	am, as := splitID(a)
	bm, bs := splitID(b)
	switch {
	case am != bm:
		if am < bm {
			return -1
		}
		return 1
	case as != bs:
		if as < bs {
			return -1
		}
		return 1
	}
	return 0
}

func splitID(id string) (ms, seq uint64) {
	m, s, _ := strings.Cut(id, "-")
	ms, _ = strconv.ParseUint(m, 10, 64)
	seq, _ = strconv.ParseUint(s, 10, 64)
	return ms, seq
}

// nextID is the smallest stream ID after id.
func nextID(id string) string {
	ms, seq := splitID(id)
	return fmt.Sprintf("%d-%d", ms, seq+1)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// readString reads a string appendString wrote; ok false when b ends
// first.
func readString(b []byte) (s string, rest []byte, ok bool) {
	l, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < l {
		return "", b, false
	}
	return string(b[k : k+int(l)]), b[k+int(l):], true
}

// packDocs packs documents for one stream entry's d field: per document
// its URL, canonical URL, signature and aliases (newline-joined).
func packDocs(es []DocEntry) string {
	var b []byte
	for _, e := range es {
		b = appendString(b, e.URL)
		b = appendString(b, e.Canonical)
		b = appendString(b, string(e.Sig))
		b = appendString(b, strings.Join(e.Aliases, "\n"))
	}
	return string(b)
}

// unpackDocs is packDocs' inverse.
func unpackDocs(id, node, d string) ([]DocEntry, error) {
	var out []DocEntry
	b := []byte(d)
	for len(b) > 0 {
		var f [4]string
		for i := range f {
			var ok bool
			if f[i], b, ok = readString(b); !ok {
				return out, fmt.Errorf("entry %s: document %d truncated", id, len(out))
			}
		}
		e := DocEntry{ID: id, Index: len(out), Node: node, URL: f[0], Canonical: f[1], Sig: []byte(f[2])}
		if f[3] != "" {
			e.Aliases = strings.Split(f[3], "\n")
		}
		out = append(out, e)
	}
	return out, nil
}

// docMessage decodes one stream entry of the log (fields n, d). An entry
// that does not decode (no documents, a document cut short: written by
// something other than a node) gives what decoded and then an entry with
// no URL, which the replay counts and logs as malformed, never silently
// dropped.
func docMessage(id string, v map[string]any) []DocEntry {
	node, _ := v["n"].(string)
	d, _ := v["d"].(string)
	out, err := unpackDocs(id, node, d)
	if err != nil || len(out) == 0 {
		out = append(out, DocEntry{ID: id, Index: len(out), Node: node})
	}
	if was, _ := v["o"].(string); was != "" {
		for i := range out {
			out[i].Was = was
		}
	}
	return out
}

// unpackSnap decodes the whole records at the start of b (a snapshot
// chunk: per stream entry its ID, node and packed documents) and returns
// them and the bytes they took. A record whose documents do not decode
// gives a malformed entry, as in the log (docMessage).
func unpackSnap(b []byte) ([]DocEntry, int) {
	var out []DocEntry
	used := 0
	for len(b) > 0 {
		id, r, ok1 := readString(b)
		node, r, ok2 := readString(r)
		d, r, ok3 := readString(r)
		if !ok1 || !ok2 || !ok3 {
			break
		}
		// a stream entry that did not decode (see docMessage) stays a
		// malformed entry in the snapshot too: the replay counts it
		es, err := unpackDocs(id, node, d)
		if err != nil || len(es) == 0 {
			es = append(es, DocEntry{ID: id, Index: len(es), Node: node})
		}
		out = append(out, es...)
		used += len(b) - len(r)
		b = r
	}
	return out, used
}

// ReadDocLog returns every document of the document log of the crawl
// under prefix, in log order (the snapshot, then the stream), read through
// rdb without joining the cluster: for inspection and tests. At most
// maxDocs documents are returned (the rest are left unread).
func ReadDocLog(ctx context.Context, rdb redis.UniversalClient, prefix string, maxDocs int) ([]DocEntry, error) {
	n := &Node{o: Options{Prefix: prefix}, rdb: rdb}
	var out []DocEntry
	after := ""
	for len(out) < maxDocs {
		es, err := n.ReadDocs(ctx, after, 1000)
		if err != nil {
			return out, err
		}
		if len(es) == 0 {
			break
		}
		out = append(out, es...)
		after = es[len(es)-1].ID
	}
	return out, nil
}
