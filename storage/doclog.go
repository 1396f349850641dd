package storage

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// A cluster node's copy of the crawl's document log (package cluster
// keeps it here; opaque to this package): chunks under l <key>, ordered
// by the key the caller gives, and one state value (!doclog) that says
// what the chunks cover, written in the same transaction as the chunks.

const nsDocLog = 'l'

var keyDocLogState = []byte("!doclog")

func docLogKey(k []byte) []byte { return append([]byte{nsDocLog}, k...) }

// AppendDocLog stores chunks[i] under keys[i] (a key stored before is
// replaced) and sets the document log's state to state, in one
// transaction: after a crash the store has all of them or none. It
// refuses to write below the free-space reserve (*NoSpaceError). Safe
// for concurrent use.
func (db *DB) AppendDocLog(keys, chunks [][]byte, state []byte) error {
	if err := db.writable(); err != nil {
		return err
	}
	if len(keys) != len(chunks) {
		return fmt.Errorf("storage: append document log: %d keys for %d chunks", len(keys), len(chunks))
	}
	size := int64(len(state))
	for i := range keys {
		if len(keys[i]) == 0 {
			return errors.New("storage: append document log: empty key")
		}
		size += int64(len(keys[i]) + len(chunks[i]))
	}
	if err := db.space.admit(size); err != nil {
		return fmt.Errorf("storage: append document log: %w", err)
	}
	err := db.bdb.Update(func(txn *badger.Txn) error {
		for i := range keys {
			if err := txn.Set(docLogKey(keys[i]), chunks[i]); err != nil {
				return err
			}
		}
		return txn.Set(keyDocLogState, state)
	})
	if err != nil {
		return fmt.Errorf("storage: append document log (%d chunks): %w", len(chunks), db.diskError(err))
	}
	return nil
}

// DocLogAfter returns the first chunk of the document log whose key sorts
// after after (nil after: the first chunk), or nil key and chunk when
// there is none. The slices are the caller's.
func (db *DB) DocLogAfter(after []byte) (key, chunk []byte, err error) {
	start := docLogKey(after)
	err = db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsDocLog}})
		defer it.Close()
		for it.Seek(start); it.Valid(); it.Next() {
			item := it.Item()
			if bytes.Equal(item.Key(), start) {
				continue
			}
			key = item.KeyCopy(nil)[1:]
			chunk, err = item.ValueCopy(nil)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("storage: read document log: %w", err)
	}
	return key, chunk, nil
}

// DocLogState returns the state AppendDocLog wrote last, nil when none.
func (db *DB) DocLogState() ([]byte, error) {
	var v []byte
	err := db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(keyDocLogState)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("storage: read document log state: %w", err)
	}
	return v, nil
}

// ResetDocLog deletes the document log's chunks and state.
func (db *DB) ResetDocLog() error {
	if err := db.writable(); err != nil {
		return err
	}
	for {
		var keys [][]byte
		err := db.bdb.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsDocLog}})
			defer it.Close()
			for it.Rewind(); it.Valid() && len(keys) < 1000; it.Next() {
				keys = append(keys, it.Item().KeyCopy(nil))
			}
			return nil
		})
		if err == nil {
			err = db.bdb.Update(func(txn *badger.Txn) error {
				for _, k := range keys {
					if err := txn.Delete(k); err != nil {
						return err
					}
				}
				if len(keys) == 0 {
					return txn.Delete(keyDocLogState)
				}
				return nil
			})
		}
		if err != nil {
			return fmt.Errorf("storage: reset document log: %w", db.diskError(err))
		}
		if len(keys) == 0 {
			return nil
		}
	}
}
