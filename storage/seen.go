package storage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/dgraph-io/badger/v4"
)

// nsSeen holds seen-records (see package seen): one value per consumer
// key, written with Badger's TTL.
const nsSeen = 's'

func seenKey(key string) []byte { return append([]byte{nsSeen}, key...) }

// MaxSeenKey is the longest seen-record key accepted, in bytes.
const MaxSeenKey = 1024

// maxSeenRetries bounds the retries of a seen-record update that lost a
// transaction conflict (another process, or a Badger-internal conflict).
const maxSeenRetries = 100

// seenLocks serialise updates of one seen-record key within this process,
// so that concurrent updates of a hot key wait instead of retrying.
type seenLocks [64]sync.Mutex

func (l *seenLocks) lock(key string) *sync.Mutex {
	m := &l[xxhash.Sum64String(key)%uint64(len(l))]
	m.Lock()
	return m
}

func checkSeenKey(key string) error {
	if key == "" || len(key) > MaxSeenKey {
		return fmt.Errorf("storage: seen-record key of %d bytes (want 1 to %d)", len(key), MaxSeenKey)
	}
	return nil
}

// SeenRecord returns the stored value of the seen-record key and the time
// it expires (the zero time: never). A key with no record, or whose record
// has expired, gives a nil value and no error: it has seen nothing. The
// value is a copy.
func (db *DB) SeenRecord(ctx context.Context, key string) ([]byte, time.Time, error) {
	if err := checkSeenKey(key); err != nil {
		return nil, time.Time{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, time.Time{}, err
	}
	var val []byte
	var exp time.Time
	err := db.bdb.View(func(txn *badger.Txn) error {
		var err error
		val, exp, err = getSeen(txn, key)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("seen-record %q: %w", key, err)
	}
	return val, exp, nil
}

func getSeen(txn *badger.Txn, key string) ([]byte, time.Time, error) {
	item, err := txn.Get(seenKey(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, time.Time{}, ErrNotFound
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	var exp time.Time
	if e := item.ExpiresAt(); e != 0 {
		exp = time.Unix(int64(e), 0)
	}
	val, err := item.ValueCopy(nil)
	return val, exp, err
}

// UpdateSeenRecord replaces the seen-record key atomically: fn receives the
// stored value (nil when there is none or it has expired) and returns the
// new one, which is written to expire ttl from now (ttl ≤ 0: never); a nil
// new value deletes the record. fn may be called more than once (after a
// transaction conflict) and must not keep old. Updates of one key are
// serialised in this process, so none is lost to a concurrent one.
// An error from fn is returned as is and nothing is written.
func (db *DB) UpdateSeenRecord(ctx context.Context, key string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error {
	if err := db.writable(); err != nil {
		return err
	}
	if err := checkSeenKey(key); err != nil {
		return err
	}
	mu := db.seenLocks.lock(key)
	defer mu.Unlock()
	for try := 0; ; try++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var fnErr error
		err := db.bdb.Update(func(txn *badger.Txn) error {
			old, _, err := getSeen(txn, key)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			val, err := fn(old)
			if err != nil {
				fnErr = err
				return err
			}
			if val == nil {
				return txn.Delete(seenKey(key))
			}
			e := badger.NewEntry(seenKey(key), val)
			if ttl > 0 {
				e = e.WithTTL(ttl)
			}
			return txn.SetEntry(e)
		})
		switch {
		case fnErr != nil:
			return fnErr
		case errors.Is(err, badger.ErrConflict) && try < maxSeenRetries:
			continue
		case errors.Is(err, badger.ErrTxnTooBig):
			return fmt.Errorf("update seen-record %q: %w", key, ErrTooLarge)
		case err != nil:
			return fmt.Errorf("update seen-record %q: %w", key, err)
		}
		return nil
	}
}

// DeleteSeenRecord removes the seen-record key and reports whether there
// was one.
func (db *DB) DeleteSeenRecord(ctx context.Context, key string) (bool, error) {
	var existed bool
	err := db.UpdateSeenRecord(ctx, key, 0, func(old []byte) ([]byte, error) {
		existed = old != nil
		return nil, nil
	})
	return existed, err
}
