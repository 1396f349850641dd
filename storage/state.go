package storage

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// ForEachFingerprint calls fn for every stored document, in docId order,
// with the data the dedup index rebuilds from. It reads only the compact
// fingerprint entries (kept in the LSM tree), never page bodies. An error
// from fn stops the scan and is returned as is.
func (db *DB) ForEachFingerprint(fn func(docID uint64, url string, titleFP, contentFP uint64, flags uint8) error) error {
	return db.scan([]byte{nsFP}, true, func(k, v []byte) error {
		docID := docIDSuffix(k)
		r, err := decodeFP(docID, v)
		if err != nil {
			return err
		}
		return fn(docID, r.url, r.titleFP, r.contentFP, r.flags)
	})
}

// ForEachFingerprintSketch is ForEachFingerprint with the document's
// optional content sketch (Page.Sketch; nil for entries stored without
// one, including every entry written before sketches existed). The sketch
// slice is fn's to keep.
func (db *DB) ForEachFingerprintSketch(fn func(docID uint64, url string, titleFP, contentFP uint64, flags uint8, sketch []byte) error) error {
	return db.scan([]byte{nsFP}, true, func(k, v []byte) error {
		docID := docIDSuffix(k)
		r, err := decodeFP(docID, v)
		if err != nil {
			return err
		}
		return fn(docID, r.url, r.titleFP, r.contentFP, r.flags, r.sketch)
	})
}

// ForEachURL calls fn for every URL record, in URL byte order. An error
// from fn stops the scan and is returned as is.
func (db *DB) ForEachURL(fn func(URLRecord) error) error {
	return db.scan([]byte{nsURL}, true, func(k, v []byte) error {
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
	err := db.scanFrom([]byte{nsQueue}, queueKey(after+1), func(k, v []byte) error {
		if after == ^uint64(0) {
			return errStop
		}
		q, err := decodeQueue(docIDSuffix(k), v)
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

// QueueLen counts the pending queue entries (a key-only scan).
func (db *DB) QueueLen() (int, error) {
	n := 0
	err := db.scan([]byte{nsQueue}, false, func(_, _ []byte) error { n++; return nil })
	if err != nil {
		return 0, fmt.Errorf("storage: queue length: %w", err)
	}
	return n, nil
}

// ForEachTrace replays the URL trace: every URL passed in Commit.Trace, in
// commit order (the order in which trace sequence numbers were assigned).
// An error from fn stops the replay and is returned as is.
func (db *DB) ForEachTrace(fn func(url string) error) error {
	return db.scan([]byte{nsTrace}, true, func(k, v []byte) error {
		return decodeTrace(docIDSuffix(k), v, fn)
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

// scan iterates over all keys with prefix in one read transaction; with
// values false, fn gets a nil value.
func (db *DB) scan(prefix []byte, values bool, fn func(k, v []byte) error) error {
	return db.scanOpt(prefix, prefix, values, fn)
}

func (db *DB) scanFrom(prefix, start []byte, fn func(k, v []byte) error) error {
	return db.scanOpt(prefix, start, true, fn)
}

func (db *DB) scanOpt(prefix, start []byte, values bool, fn func(k, v []byte) error) error {
	return db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: values, PrefetchSize: 100})
		defer it.Close()
		for it.Seek(start); it.Valid(); it.Next() {
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
