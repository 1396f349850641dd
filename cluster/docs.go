package cluster

import (
	"context"
	"encoding/binary"
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
// The log is bounded: Redis holds only its tail. Every lease round, each
// node saves the entries it applied to its own store (Options.History,
// history.go: packed and compressed, with the last entry saved, in one
// write), publishes that last entry (hash PREFIX:{docs}:applied) and
// trims the log to what every live node has saved (XTRIM MINID;
// PREFIX:{docs}:trimmed is the last entry trimmed). A node that starts
// replays its own copy (ReadDocs reads it first), then reads the log on
// from where its copy ends; where the log was trimmed past that point (a
// node on an empty store, or one that was down while the others trimmed)
// it gets the missing history from a live node's copy, through Redis
// (transfer.go). A node without a History publishes no position, so the
// log is not trimmed while it is live.

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

// docState is the node's read position in the log: entries the group
// commit read back and not yet handed out by ReadDocs (contiguous after
// from), the last entry the node applied, and its copy of the log
// (history.go, transfer.go).
type docState struct {
	mu        sync.Mutex
	batch     int
	started   bool       // a ReadDocs reached the log's end: from is known
	from      string     // the entry before buf[0]
	buf       []DocEntry // entries after from, in order
	applied   string     // last entry applied (DocsApplied)
	published string     // the position last written to Redis (PREFIX:{docs}:applied)

	localLast string     // the end of the node's copy when it opened: ReadDocs replays the copy up to it first
	saved     string     // the last entry in the node's copy ("" none)
	unsaved   []DocEntry // entries handed out by ReadDocs after saved, in order, not yet in the copy
	keeps     bool       // the node keeps a copy (Options.History)
	xfer      *transfer  // the history being received from a live node (nil: none)
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

// DocsApplied records the last log entry this node applied: saved to its
// copy of the log every lease round (history.go), the position published
// then lets the log be trimmed up to the entries every live node saved.
func (n *Node) DocsApplied(id string) {
	n.docs.mu.Lock()
	n.docs.applied = id
	big := len(n.docs.unsaved) >= saveEvery
	n.docs.mu.Unlock()
	if big {
		// catching up fast (a transfer): save now, not at the next round
		if err := n.saveDocs(); err != nil {
			n.log.Warn("cluster: save the document log to this node's store", "error", err.Error())
		}
	}
}

// luaCmpID is cmpID in Lua, for the scripts that compare stream IDs.
const luaCmpID = `
local function cmp(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  if am ~= bm then return am < bm and -1 or 1 end
  if as ~= bs then return as < bs and -1 or 1 end
  return 0
end`

// readDocsScript reads the document log after ARGV[1] (up to ARGV[2]
// stream entries) in one atomic step, unless the log was trimmed past
// ARGV[1]. KEYS: log, the last entry trimmed, the last entry of an
// earlier version's snapshot. Returns {'x', entries}, {'t', last
// trimmed} or {'o', the snapshot's last entry}.
var readDocsScript = redis.NewScript(luaCmpID + `
local t = redis.call('GET', KEYS[2])
if t and cmp(ARGV[1], t) < 0 then return {'t', t} end
if not t then
  local s = redis.call('GET', KEYS[3])
  if s and cmp(ARGV[1], s) < 0 then return {'o', s} end
end
return {'x', redis.call('XRANGE', KEYS[1], '(' .. ARGV[1], '+', 'COUNT', ARGV[2])}`)

// maxTransfers is the most transfers of history one ReadDocs asks for
// (a transfer that ends short of the log's tail asks again).
const maxTransfers = 3

// ReadDocs returns the document log's entries after the stream entry
// after ("" for the log's start), in log order: up to limit stream
// entries (every document of each; more may come at once from the
// node's copy or a transfer, which come in chunks), fewer meaning the end
// of the log for now. The node's own copy of the log (history.go) is
// read first, up to where it ended when the node opened; then entries a
// group-commit round read back, without a round trip; then the log in
// Redis. Where the log was trimmed past after, the history is asked of a
// live node and received through Redis (transfer.go); ReadDocs fails
// with an error saying what to do when no live node serves it.
func (n *Node) ReadDocs(ctx context.Context, after string, limit int) ([]DocEntry, error) {
	if after == "" {
		after = "0-0"
	}
	var out []DocEntry
	count, transfers := 0, 0
	for count < limit {
		var es []DocEntry
		var err error
		end, local := false, false // end: the log's own reply, short at its end
		switch {
		case n.docs.inLocal(after):
			es, err = n.readLocal(after)
			local = true
		case n.docs.receiving():
			es, err = n.receive(ctx, after)
		default:
			if b, ok := n.docs.fromBuffer(after, limit-count); ok {
				es, end = b, true
				break
			}
			var trimmed string
			es, trimmed, err = n.readLog(ctx, after, limit-count)
			if err == nil && trimmed != "" {
				if transfers++; transfers > maxTransfers {
					err = fmt.Errorf("cluster: document log %s: trimmed past entry %s again after %d transfers of its history", n.docKey("log"), after, maxTransfers)
				} else {
					err = n.requestHistory(ctx, after, trimmed)
				}
				if err != nil {
					return nil, err
				}
				continue
			}
			end = true
		}
		if err != nil {
			return nil, err
		}
		if !local {
			n.docs.keep(es)
		}
		if len(es) > 0 {
			out = append(out, es...)
			after = es[len(es)-1].ID
			count += countEntries(es)
		}
		if end {
			break
		}
	}
	return out, nil
}

// countEntries counts the stream entries documents came in.
func countEntries(es []DocEntry) int {
	k := 0
	for i, e := range es {
		if i == 0 || e.ID != es[i-1].ID {
			k++
		}
	}
	return k
}

// readLog reads up to limit stream entries of the log in Redis after
// after, or returns the last entry trimmed when the log was trimmed past
// after.
func (n *Node) readLog(ctx context.Context, after string, limit int) ([]DocEntry, string, error) {
	res, err := readDocsScript.Run(ctx, n.rdb, []string{n.docKey("log"), n.docKey("trimmed"), n.docKey("snapid")}, after, limit).Slice()
	if err != nil {
		return nil, "", fmt.Errorf("cluster: read document log %s: %w", n.docKey("log"), err)
	}
	if len(res) != 2 {
		return nil, "", fmt.Errorf("cluster: read document log %s: reply %v", n.docKey("log"), res)
	}
	switch res[0] {
	case "x":
		es, err := n.logEntries(after, limit, res[1])
		return es, "", err
	case "t":
		t, _ := res[1].(string)
		return nil, t, nil
	case "o":
		return nil, "", fmt.Errorf("cluster: this crawl's document log up to entry %v was moved to a snapshot in Redis (%s) by an earlier version of bloomcrawl, "+
			"which this version does not read: finish the crawl with that version, or crawl again with a new --store on an empty Redis", res[1], n.docKey("snap"))
	}
	return nil, "", fmt.Errorf("cluster: read document log %s: reply %v", n.docKey("log"), res)
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

// unpackSnap decodes the whole records at the start of b (a chunk of the
// node's copy of the log: per stream entry its ID, node and packed
// documents) and returns them and the bytes they took. A record whose
// documents do not decode gives a malformed entry, as in the log
// (docMessage).
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
		// malformed entry in the copy too: the replay counts it
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

// ReadDocLog returns the documents of the document log of the crawl
// under prefix that Redis still holds (the tail not yet trimmed: the
// history is in the nodes' stores, ReadDocHistory), in log order, read
// through rdb without joining the cluster: for inspection and tests. At
// most maxDocs documents are returned (the rest are left unread).
func ReadDocLog(ctx context.Context, rdb redis.UniversalClient, prefix string, maxDocs int) ([]DocEntry, error) {
	key := prefix + ":{docs}:log"
	var out []DocEntry
	from := "-"
	for len(out) < maxDocs {
		msgs, err := rdb.XRangeN(ctx, key, from, "+", 1000).Result()
		if err != nil {
			return out, fmt.Errorf("cluster: read document log %s: %w", key, err)
		}
		for _, m := range msgs {
			out = append(out, docMessage(m.ID, m.Values)...)
		}
		if len(msgs) < 1000 {
			break
		}
		from = "(" + msgs[len(msgs)-1].ID
	}
	if len(out) > maxDocs {
		out = out[:maxDocs]
	}
	return out, nil
}
