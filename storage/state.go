package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Fingerprint is a stored document's fingerprint entry: the data a
// content-dedup index rebuilds from, kept apart from the page so that a
// scan never reads page bodies.
type Fingerprint struct {
	DocID     DocID
	URL       string // the URL the document was first stored under (Page.URL)
	TitleFP   uint64 // Page.TitleFP
	ContentFP uint64 // Page.ContentFP
	FPFlags   uint8  // Page.FPFlags
	Sketch    []byte // Page.Sketch; nil for entries stored without one (all entries written before sketches existed)
}

// ForEachFingerprint calls fn for every stored document's Fingerprint, in
// docId order. It reads only the compact fingerprint entries (kept in the
// LSM tree), never page bodies; fn may keep the Sketch slice. An error from
// fn stops the scan and is returned as is; so is ctx.Err() when ctx is
// done.
func (db *DB) ForEachFingerprint(ctx context.Context, fn func(Fingerprint) error) error {
	return db.scan(ctx, []byte{nsFP}, true, func(k, v []byte) error {
		f, err := decodeFP(docIDSuffix(k), v)
		if err != nil {
			return err
		}
		return fn(f)
	})
}

// ForEachURL calls fn for every URL record, in URL byte order. An error
// from fn stops the scan and is returned as is; so is ctx.Err() when ctx
// is done.
func (db *DB) ForEachURL(ctx context.Context, fn func(URLRecord) error) error {
	return db.scan(ctx, []byte{nsURL}, true, func(k, v []byte) error {
		r, err := decodeURLRecord(string(k[1:]), v)
		if err != nil {
			return err
		}
		return fn(r)
	})
}

// QueueScan returns up to limit pending queue entries with Seq > after, in
// seq order (limit <= 0 means all).
func (db *DB) QueueScan(after uint64, limit int) ([]QueueEntry, error) {
	var out []QueueEntry
	errStop := errors.New("stop")
	// Not cancellable: a bounded read (limit entries) by the frontier, which
	// has no context at that point.
	err := db.scanOpt(context.Background(), []byte{nsQueue}, queueKey(after+1), true, func(k, v []byte) error {
		if after == ^uint64(0) {
			return errStop
		}
		q, err := decodeQueue(seqSuffix(k), v)
		if err != nil {
			return err
		}
		out = append(out, q)
		if limit > 0 && len(out) == limit {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("storage: queue scan: %w", err)
	}
	return out, nil
}

// QueueLen counts the pending queue entries (a key-only scan). It stops
// with ctx.Err() when ctx is done.
func (db *DB) QueueLen(ctx context.Context) (int, error) {
	n := 0
	err := db.scan(ctx, []byte{nsQueue}, false, func(_, _ []byte) error { n++; return nil })
	if err != nil {
		return 0, fmt.Errorf("storage: queue length: %w", err)
	}
	return n, nil
}

// ForEachTrace replays the URL trace: every URL passed in Commit.Trace, in
// commit order (the order in which trace sequence numbers were assigned).
// An error from fn stops the replay and is returned as is; so is
// ctx.Err() when ctx is done.
func (db *DB) ForEachTrace(ctx context.Context, fn func(url string) error) error {
	return db.scan(ctx, []byte{nsTrace}, true, func(k, v []byte) error {
		return decodeTrace(seqSuffix(k), v, fn)
	})
}

// GetMeta returns the value stored under key by PutMeta, or an error
// wrapping ErrNotFound.
func (db *DB) GetMeta(key string) ([]byte, error) {
	b, err := db.getMeta(key)
	if errors.Is(err, ErrCorrupt) && !db.opts.ReadOnly {
		// A concurrent PutMeta may have replaced the value and removed
		// its blob file between our two reads; PutMeta holds metaMu.
		db.metaMu.Lock()
		defer db.metaMu.Unlock()
		return db.getMeta(key)
	}
	return b, err
}

func (db *DB) getMeta(key string) ([]byte, error) {
	var val []byte
	var ref *blobRef
	err := db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(metaKey(key))
		if err == nil {
			val, err = item.ValueCopy([]byte{})
			return err
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		if item, err = txn.Get(blobRefKey(key)); err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			r, err := decodeBlobRef(key, v)
			ref = &r
			return err
		})
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("meta %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("storage: get meta %q: %w", key, err)
	}
	if ref != nil {
		return db.readBlob(key, *ref)
	}
	return val, nil
}

// stopped returns ctx.Err() once ctx is done, without waiting: scans
// call it before every key.
func stopped(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
		return nil
	}
}

// scan iterates over all keys with prefix in one read transaction; with
// values false, fn gets a nil value. It stops with ctx.Err() when ctx is
// done (checked before every key).
func (db *DB) scan(ctx context.Context, prefix []byte, values bool, fn func(k, v []byte) error) error {
	return db.scanOpt(ctx, prefix, prefix, values, fn)
}

func (db *DB) scanOpt(ctx context.Context, prefix, start []byte, values bool, fn func(k, v []byte) error) error {
	return db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: values, PrefetchSize: 100})
		defer it.Close()
		for it.Seek(start); it.Valid(); it.Next() {
			if err := stopped(ctx); err != nil {
				return err
			}
			item := it.Item()
			if !values {
				if err := fn(item.Key(), nil); err != nil {
					return err
				}
				continue
			}
			if err := item.Value(func(v []byte) error { return fn(item.Key(), v) }); err != nil {
				return err
			}
		}
		return nil
	})
}
