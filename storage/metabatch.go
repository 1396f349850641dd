package storage

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// PutMetas stores several small meta values in one transaction (the WARC
// writer's payload-digest and document maps: one transaction per batch
// instead of one per record). Each value must be under 256 KiB (larger:
// ErrTooLarge, nothing written); a key's earlier value, small or large, is
// replaced. All or none are written. Safe for concurrent use.
func (db *DB) PutMetas(kv map[string][]byte) error {
	if err := db.writable(); err != nil {
		return err
	}
	for k, v := range kv {
		if k == "" {
			return errors.New("storage: PutMetas: empty key")
		}
		if len(v) >= blobMin {
			return fmt.Errorf("put metas %q (%d bytes, limit %d): %w", k, len(v), blobMin-1, ErrTooLarge)
		}
	}
	db.metaMu.Lock()
	defer db.metaMu.Unlock()
	var oldBlob bool
	err := db.bdb.Update(func(txn *badger.Txn) error {
		for k, v := range kv {
			if _, err := txn.Get(blobRefKey(k)); err == nil {
				oldBlob = true
				if err := txn.Delete(blobRefKey(k)); err != nil {
					return err
				}
			}
			if err := txn.Set(metaKey(k), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put %d meta values: %w", len(kv), err)
	}
	if oldBlob {
		if err := db.removeUnreferencedBlobs(); err != nil {
			return fmt.Errorf("put %d meta values: remove replaced blob: %w", len(kv), err)
		}
	}
	return nil
}
