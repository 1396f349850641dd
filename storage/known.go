package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Known reports, for each URL of urls, whether the store knows it: it was
// ever queued (Commit.Enqueue marks it, and the mark outlives the queue
// entry) or it has a URL record (fetched, or recorded as a redirect
// alias). known must have len(urls) elements. All lookups are point reads
// in one read transaction, the queued mark first (small keys with 8-byte
// values: they stay in the block cache); it is what a crawler asks before
// trusting a URL filter's "seen" answer (one call per page).
func (db *DB) Known(ctx context.Context, urls []string, known []bool) error {
	if len(known) != len(urls) {
		return fmt.Errorf("storage: Known: %d results for %d URLs", len(known), len(urls))
	}
	if db.isClosed() {
		return ErrClosed
	}
	err := db.bdb.View(func(txn *badger.Txn) error {
		for i, u := range urls {
			if err := ctx.Err(); err != nil {
				return err
			}
			ok, err := has(txn, queuedKey(u))
			if err == nil && !ok {
				ok, err = has(txn, urlKey(u))
			}
			if err != nil {
				return err
			}
			known[i] = ok
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ctx.Err()) {
			return err
		}
		return fmt.Errorf("storage: Known: %w", err)
	}
	return nil
}

func has(txn *badger.Txn, key []byte) (bool, error) {
	_, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

// indexQueue gives every pending queue entry of a store written before the
// queued marks existed its e <url> mark, once, and marks the store
// (keyQueuedIndex); the URLs it dequeued before have their URL records. A
// new store is marked at once.
func indexQueue(bdb *badger.DB) error {
	done := false
	err := bdb.View(func(txn *badger.Txn) error {
		var err error
		done, err = has(txn, keyQueuedIndex)
		return err
	})
	if err != nil || done {
		return err
	}
	wb := bdb.NewWriteBatch()
	defer wb.Cancel()
	err = bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsQueue}, PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			seq := seqSuffix(item.Key())
			u, err := queuedURL(item, seq)
			if err != nil {
				return err
			}
			if err := wb.Set(queuedKey(u), u64key(0, seq)[1:]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := wb.Set(keyQueuedIndex, []byte{1}); err != nil {
		return err
	}
	return wb.Flush()
}
