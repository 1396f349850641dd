package crawler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/bloomcrawl/bloomcrawl/cluster"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/similar"
)

// docLog is the part of *cluster.Node that content dedup across nodes
// needs: the crawl's document log (see package cluster).
type docLog interface {
	Name() string
	CheckDocParams(ctx context.Context, params string) error
	AppendDoc(ctx context.Context, e cluster.DocEntry) (cluster.DocRef, error)
	ReadDocs(ctx context.Context, after string, limit int) ([]cluster.DocEntry, error)
	DocsApplied(id string)
}

// clusterDedup is content dedup in cluster mode. Every page this node
// judges is signed here, appended to the cluster's document log, and
// decided by replaying the log up to its entry through the local
// deduper: each node replays every entry (its own and the other nodes')
// in log order, so all nodes' dedupers hold the same documents and give
// the same verdict for each entry, the decisions a single node would make
// on the pages in log order. The first of two near-duplicates in the log
// is the document, stored by the node that fetched it; the other is its
// duplicate wherever it was fetched (first seen wins, atomically: the log
// is one Redis stream and an append is atomic). The appends of the
// node's workers go to Redis together in the node's group commit, which
// reads the log on in the same round trip; the replay is serialized.
//
// The deduper must be fed by nothing else (no restore from the local
// store, no API Check): a decision outside the log would make this node's
// index differ from the others'.
type clusterDedup struct {
	log   docLog
	dd    deduper
	node  string
	batch int          // the most log entries read in one reply (docBatch)
	warn  *slog.Logger // a warning per malformed entry skipped
	bad   atomic.Int64 // malformed log entries skipped (badEntry)

	mu    sync.Mutex        // serializes the replays of this node
	last  string            // the last log entry replayed
	owner map[uint64]uint16 // docId → the node that stored it (an index in names)
	names []string          // the nodes' names
	index map[string]uint16 // name → index in names

	// verdicts of this node's pages replayed by another of its pages'
	// check (one round logs several), until their own check takes them
	decided map[cluster.DocRef]verdictNode
}

type verdictNode struct {
	v    contentdedup.Verdict
	node string
}

// docBatch is the most document log entries a node reads in one reply
// (catching up at start, or after idling while the other nodes logged).
const docBatch = 10_000

// newClusterDedup: logger (nil: discard) gets a warning per malformed
// log entry skipped.
func newClusterDedup(log docLog, dd deduper, logger *slog.Logger) *clusterDedup {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &clusterDedup{log: log, dd: dd, node: log.Name(), batch: docBatch, warn: logger, owner: map[uint64]uint16{}, index: map[string]uint16{},
		decided: map[cluster.DocRef]verdictNode{}}
}

// start checks that every node decides by the same rules and replays the
// whole log so far (a node joining late or restarted catches up: from its
// own copy of the log, a live node's, and the log's tail; see package
// cluster).
func (cd *clusterDedup) start(ctx context.Context, params string) (int, error) {
	if err := cd.log.CheckDocParams(ctx, params); err != nil {
		return 0, err
	}
	cd.mu.Lock()
	defer cd.mu.Unlock()
	n := 0
	for {
		batch, err := cd.log.ReadDocs(ctx, cd.last, cd.batch)
		if err != nil {
			return n, err
		}
		for _, e := range batch {
			if _, err := cd.apply(e, similar.Entry{}); cd.skip(err) != nil {
				return n, err
			}
			cd.last = e.ID
		}
		n += len(batch)
		cd.log.DocsApplied(cd.last) // saved to the node's copy as it goes (a long catch-up too)
		if len(batch) == 0 || entries(batch) < cd.batch {
			return n, nil
		}
	}
}

// entries counts the stream entries documents came in.
func entries(es []cluster.DocEntry) int {
	k := 0
	for i, e := range es {
		if i == 0 || e.ID != es[i-1].ID {
			k++
		}
	}
	return k
}

// check decides the page (url, its declared canonical, its signature and
// similarity from Deduper.Prepare, the other URLs of its redirect chain):
// it appends the page to the log, replays the log up to it and returns
// its verdict and the node whose page is its document (this node's name
// for a new document).
func (cd *clusterDedup) check(ctx context.Context, url, canonical string, sig contentdedup.Signature, sim similar.Entry, aliases []string) (contentdedup.Verdict, string, error) {
	b, _ := sig.MarshalBinary()
	ref, err := cd.log.AppendDoc(ctx, cluster.DocEntry{URL: url, Canonical: canonical, Sig: b, Aliases: aliases})
	if err != nil {
		return contentdedup.Verdict{}, "", err
	}
	cd.mu.Lock()
	defer cd.mu.Unlock()
	if d, ok := cd.decided[ref]; ok {
		delete(cd.decided, ref)
		if !d.v.Duplicate {
			d.v.Similar = sim // what CheckSig returns with a new document's own entry
		}
		return d.v, d.node, nil
	}
	// replay the log up to this page's entry, in pieces of at most
	// cd.batch stream entries; the verdicts of this node's other pages
	// met on the way are kept for their callers (their similarity
	// entries are theirs: the deduper indexes a page's sketch either
	// way)
	for {
		entries, err := cd.log.ReadDocs(ctx, cd.last, cd.batch)
		if err != nil {
			return contentdedup.Verdict{}, "", err
		}
		if len(entries) == 0 {
			return contentdedup.Verdict{}, "", fmt.Errorf("crawler: document log: entry %s/%d (%s) not found after %s", ref.ID, ref.Index, url, cd.last)
		}
		var v contentdedup.Verdict
		node, found := "", false
		for _, e := range entries {
			s := similar.Entry{}
			if ref.Is(e) {
				s = sim
			}
			ev, err := cd.apply(e, s)
			if ref.Is(e) && err != nil || cd.skip(err) != nil {
				return contentdedup.Verdict{}, "", err
			}
			cd.last = e.ID
			owner := ""
			if i, ok := cd.owner[ev.DocID]; ok {
				owner = cd.names[i]
			}
			switch {
			case ref.Is(e):
				v, node, found = ev, owner, true
			case e.Node == cd.node:
				key := cluster.DocRef{ID: e.ID, Index: e.Index}
				if e.Was != "" {
					key.ID = e.Was // appended anew after a Redis crash: its caller knows the first ID
				}
				cd.decided[key] = verdictNode{ev, owner}
			}
		}
		cd.log.DocsApplied(cd.last)
		if found {
			return v, node, nil
		}
	}
}

// apply replays one log entry: the deduper's verdict on it, its aliases
// mapped to its document, and the document's node remembered.
// A malformed entry (no URL or node, an undecodable signature: written
// by something other than a node) changes nothing and returns a
// *badEntryError.
func (cd *clusterDedup) apply(e cluster.DocEntry, sim similar.Entry) (contentdedup.Verdict, error) {
	var sig contentdedup.Signature
	var bad error
	switch {
	case e.URL == "":
		bad = errors.New("no URL")
	case e.Node == "":
		bad = errors.New("no node")
	default:
		if err := sig.UnmarshalBinary(e.Sig); err != nil {
			bad = err
		}
	}
	if bad != nil {
		return contentdedup.Verdict{}, &badEntryError{id: e.ID, url: e.URL, node: e.Node, err: bad}
	}
	v := cd.dd.CheckSig(e.URL, e.Canonical, sig, sim)
	for _, a := range e.Aliases {
		cd.dd.AddURL(a, v.DocID)
	}
	// the node that stores the document: the one whose page was new,
	// or the one that fetched a document's first URL again (its first
	// node died before acknowledging it; redisDocs.judge stores it there)
	if !v.Duplicate || v.Reason == contentdedup.ReasonURL && v.MatchURL == e.URL {
		i, ok := cd.index[e.Node]
		if !ok {
			if len(cd.names) == 1<<16 {
				return v, fmt.Errorf("crawler: document log entry %s: more than %d node names", e.ID, 1<<16)
			}
			i = uint16(len(cd.names))
			cd.names = append(cd.names, e.Node)
			cd.index[e.Node] = i
		}
		cd.owner[v.DocID] = i
	}
	return v, nil
}

// badEntryError is a malformed document log entry.
type badEntryError struct {
	id, url, node string
	err           error
}

func (e *badEntryError) Error() string {
	return fmt.Sprintf("crawler: document log entry %s (url %q, node %q) is malformed: %v", e.id, e.url, e.node, e.err)
}

func (e *badEntryError) Unwrap() error { return e.err }

// skip returns err unless it is a malformed entry's (apply): that one is
// skipped (every node skips it the same way, so the nodes' indexes stay
// equal), counted and logged with its ID, and skip returns nil.
func (cd *clusterDedup) skip(err error) error {
	var be *badEntryError
	if !errors.As(err, &be) {
		return err
	}
	n := cd.bad.Add(1)
	cd.warn.Warn("cluster document log: malformed entry skipped", "id", be.id, "url", be.url, "node", be.node, "error", be.err.Error(), "skipped", n)
	return nil
}

// report adds the malformed entries skipped to s.
func (cd *clusterDedup) report(s *Stats) { s.ClusterBadDocEntries = cd.bad.Load() }
