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
	LogDoc(ctx context.Context, after string, limit int, e cluster.DocEntry) (string, []cluster.DocEntry, error)
	ReadDocs(ctx context.Context, after string, limit int) ([]cluster.DocEntry, error)
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
// is one Redis stream and an append is atomic). A page costs one round
// trip (the append returns the entries since this node's last).
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

	mu    sync.Mutex        // serializes the appends and replays of this node
	last  string            // the last log entry replayed
	owner map[uint64]uint16 // docId → the node that stored it (an index in names)
	names []string          // the nodes' names
	index map[string]uint16 // name → index in names
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
	return &clusterDedup{log: log, dd: dd, node: log.Name(), batch: docBatch, warn: logger, owner: map[uint64]uint16{}, index: map[string]uint16{}}
}

// start checks that every node decides by the same rules and replays the
// whole log so far (a node joining late or restarted catches up).
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
		if len(batch) < cd.batch {
			return n, nil
		}
	}
}

// check decides the page (url, its declared canonical, its signature and
// similarity from Deduper.Prepare, the other URLs of its redirect chain):
// it appends the page to the log, replays the log up to it and returns
// its verdict and the node whose page is its document (this node's name
// for a new document).
func (cd *clusterDedup) check(ctx context.Context, url, canonical string, sig contentdedup.Signature, sim similar.Entry, aliases []string) (contentdedup.Verdict, string, error) {
	b, _ := sig.MarshalBinary()
	cd.mu.Lock()
	defer cd.mu.Unlock()
	id, entries, err := cd.log.LogDoc(ctx, cd.last, cd.batch, cluster.DocEntry{Node: cd.node, URL: url, Canonical: canonical, Sig: b, Aliases: aliases})
	if err != nil {
		return contentdedup.Verdict{}, "", err
	}
	// replay the log up to this page's entry, in pieces of at most
	// cd.batch entries (the later pieces may run past it: they are
	// replayed too, in order)
	var v contentdedup.Verdict
	node := ""
	for found := false; !found; {
		if len(entries) == 0 {
			return contentdedup.Verdict{}, "", fmt.Errorf("crawler: document log: entry %s (%s) not found after %s", id, url, cd.last)
		}
		for _, e := range entries {
			s := similar.Entry{}
			if e.ID == id {
				s = sim
			}
			ev, err := cd.apply(e, s)
			if e.ID == id && err != nil || cd.skip(err) != nil {
				return contentdedup.Verdict{}, "", err
			}
			cd.last = e.ID
			if e.ID == id {
				v, found = ev, true
				if i, ok := cd.owner[v.DocID]; ok {
					node = cd.names[i]
				}
			}
		}
		if !found {
			if entries, err = cd.log.ReadDocs(ctx, cd.last, cd.batch); err != nil {
				return contentdedup.Verdict{}, "", err
			}
		}
	}
	return v, node, nil
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
