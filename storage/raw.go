package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Raw fetches (store.keep_raw): namespace 'x', key x <uint64 seq>, one
// value per fetch as its keeper wrote it (package archive encodes the
// HTTP exchanges: request and response heads as on the wire, payload as
// received), stored as a record version byte and a blob (zstd at the
// store's compression level when that is smaller). seq is the write time
// in nanoseconds, made strictly increasing within a process, so that
// ForEachRaw gives the fetches in the order they were kept, across
// resumed crawls too.

const (
	nsRaw    = 'x'
	rawRecV1 = 1
)

var rawSeq struct {
	sync.Mutex
	last uint64
}

func nextRawSeq() uint64 {
	rawSeq.Lock()
	defer rawSeq.Unlock()
	s := uint64(time.Now().UnixNano())
	if s <= rawSeq.last {
		s = rawSeq.last + 1
	}
	rawSeq.last = s
	return s
}

// PutRaw stores v, one fetch's raw exchanges (opaque to storage), after
// every raw value stored before it. It is written in a transaction of its
// own, compressed.
func (db *DB) PutRaw(v []byte) error {
	if err := db.writable(); err != nil {
		return err
	}
	e := enc{level: db.opts.zlevel}
	e.byte(rawRecV1)
	e.blob(v)
	key := u64key(nsRaw, nextRawSeq())
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(key, e.b) }); err != nil {
		return fmt.Errorf("storage: put raw fetch: %w", err)
	}
	return nil
}

// HasRaw reports whether the store holds any raw fetch.
func (db *DB) HasRaw() (bool, error) {
	found := errors.New("found")
	err := db.scan(context.Background(), []byte{nsRaw}, false, func(k, _ []byte) error { return found })
	if errors.Is(err, found) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("storage: raw fetches: %w", err)
	}
	return false, nil
}

// ForEachRaw calls fn with every raw fetch in the order they were stored
// (fn must not keep v). It stops with fn's error, or ctx.Err() when ctx
// is done; a value that does not decode is an error wrapping ErrCorrupt.
func (db *DB) ForEachRaw(ctx context.Context, fn func(v []byte) error) error {
	return db.scan(ctx, []byte{nsRaw}, true, func(k, v []byte) error {
		d := dec{b: v}
		if ver := d.byte(); d.err == nil && ver != rawRecV1 {
			return fmt.Errorf("%w: raw fetch %d: record version %d", ErrCorrupt, binary.BigEndian.Uint64(k[1:]), ver)
		}
		b := d.blob(false)
		if err := d.done("raw fetch"); err != nil {
			return fmt.Errorf("raw fetch %d: %w", binary.BigEndian.Uint64(k[1:]), err)
		}
		return fn(b)
	})
}
