package cluster

import (
	"context"
	"fmt"
	"strings"

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

// DocEntry is one page's entry in the document log.
type DocEntry struct {
	ID        string   // stream entry ID, assigned by Redis: the log's order
	Node      string   // the node that fetched the page
	URL       string   // the page's URL
	Canonical string   // the canonical URL it declares ("" for none)
	Sig       []byte   // its content-dedup signature (opaque to this package)
	Aliases   []string // the redirect chain's other URLs, to map to its document
}

// docLogScript appends a page's entry to the document log and returns its
// ID and the entries after ARGV[1] up to and including it, at most
// ARGV[7] of them (the first ones), in one atomic step (one round trip
// per page). KEYS: log. ARGV: after ("" for the start), node, url,
// canonical, signature, aliases joined by newlines, limit.
var docLogScript = redis.NewScript(`
local id = redis.call('XADD', KEYS[1], '*', 'n', ARGV[2], 'u', ARGV[3], 'c', ARGV[4], 's', ARGV[5], 'a', ARGV[6])
local from = '-'
if ARGV[1] ~= '' then from = '(' .. ARGV[1] end
return {id, redis.call('XRANGE', KEYS[1], from, id, 'COUNT', ARGV[7])}`)

func (n *Node) docKey(kind string) string { return n.o.Prefix + ":{docs}:" + kind }

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

// LogDoc appends e (its ID is ignored) to the document log and returns
// the ID it got and the entries after the entry after ("" for the log's
// start) up to and including it, in log order, at most limit (>= 1) of
// them: the caller replays them to reach e's verdict. Fewer entries than
// the backlog (the last returned is not e) means the caller reads on
// with ReadDocs: a node far behind the log (idle while the others
// logged) gets it in bounded pieces, not in one reply. One round trip.
func (n *Node) LogDoc(ctx context.Context, after string, limit int, e DocEntry) (string, []DocEntry, error) {
	if limit < 1 {
		return "", nil, fmt.Errorf("cluster: document log %s: limit %d, want >= 1", n.docKey("log"), limit)
	}
	res, err := docLogScript.Run(ctx, n.rdb, []string{n.docKey("log")}, after, e.Node, e.URL, e.Canonical, e.Sig, strings.Join(e.Aliases, "\n"), limit).Slice()
	if err != nil {
		return "", nil, fmt.Errorf("cluster: document log %s: %w", n.docKey("log"), err)
	}
	if len(res) != 2 {
		return "", nil, fmt.Errorf("cluster: document log %s: reply of %d items", n.docKey("log"), len(res))
	}
	id, _ := res[0].(string)
	raw, _ := res[1].([]any)
	entries := make([]DocEntry, 0, len(raw))
	for _, r := range raw {
		de, err := docEntry(r)
		if err != nil {
			return "", nil, fmt.Errorf("cluster: document log %s: %w", n.docKey("log"), err)
		}
		entries = append(entries, de)
	}
	if len(entries) == 0 || len(entries) < limit && entries[len(entries)-1].ID != id {
		return "", nil, fmt.Errorf("cluster: document log %s: entry %s missing from its own reply", n.docKey("log"), id)
	}
	return id, entries, nil
}

// ReadDocs returns up to limit entries of the document log after the
// entry after ("" for the start), in log order; fewer than limit means
// the end of the log (for now).
func (n *Node) ReadDocs(ctx context.Context, after string, limit int) ([]DocEntry, error) {
	from := "-"
	if after != "" {
		from = "(" + after
	}
	msgs, err := n.rdb.XRangeN(ctx, n.docKey("log"), from, "+", int64(limit)).Result()
	if err != nil {
		return nil, fmt.Errorf("cluster: read document log %s: %w", n.docKey("log"), err)
	}
	out := make([]DocEntry, len(msgs))
	for i, m := range msgs {
		out[i] = docFields(m.ID, m.Values)
	}
	return out, nil
}

// docEntry decodes one XRANGE reply item returned by a script: {id,
// {field, value, ...}}.
func docEntry(r any) (DocEntry, error) {
	pair, ok := r.([]any)
	if !ok || len(pair) != 2 {
		return DocEntry{}, fmt.Errorf("malformed entry %v", r)
	}
	id, _ := pair[0].(string)
	kv, _ := pair[1].([]any)
	vals := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		vals[k] = kv[i+1]
	}
	return docFields(id, vals), nil
}

func docFields(id string, v map[string]any) DocEntry {
	s := func(k string) string { x, _ := v[k].(string); return x }
	e := DocEntry{ID: id, Node: s("n"), URL: s("u"), Canonical: s("c"), Sig: []byte(s("s"))}
	if a := s("a"); a != "" {
		e.Aliases = strings.Split(a, "\n")
	}
	return e
}
