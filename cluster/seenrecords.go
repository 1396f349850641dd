package cluster

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// SeenStore keeps seen-records (package seen's Store) in Redis, shared by
// every node and client of the cluster: one Redis string per key
// (PREFIX:seen:KEY), holding the record's value as package seen encodes
// it, expiring through Redis's own expiry (SET … PX). It is safe for
// concurrent use, across processes too: an update is a WATCH / GET /
// MULTI SET EXEC transaction, tried again when another client changed
// the key in between, so no concurrent update is lost.
type SeenStore struct {
	rdb    redis.UniversalClient
	prefix string
	owned  bool // rdb was opened by OpenSeenStore: Close closes it
}

// OpenSeenStore connects to the Redis at url (as Options.URL) and returns
// its seen-records store under prefix ("": "bloomcrawl"). Close it.
func OpenSeenStore(ctx context.Context, url, prefix string) (*SeenStore, error) {
	rdb, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	if err := checkServer(ctx, rdb, url); err != nil {
		rdb.Close()
		return nil, err
	}
	s := NewSeenStore(rdb, prefix)
	s.owned = true
	return s, nil
}

// Close closes the connection OpenSeenStore opened (a store of
// NewSeenStore or Node.SeenStore leaves its client open).
func (s *SeenStore) Close() error {
	if s.owned {
		return s.rdb.Close()
	}
	return nil
}

// NewSeenStore returns the seen-records store in rdb under prefix (""
// for "bloomcrawl", the crawl's default Options.Prefix).
func NewSeenStore(rdb redis.UniversalClient, prefix string) *SeenStore {
	if prefix == "" {
		prefix = "bloomcrawl"
	}
	return &SeenStore{rdb: rdb, prefix: prefix}
}

// SeenStore returns the seen-records store on the node's Redis.
func (n *Node) SeenStore() *SeenStore { return NewSeenStore(n.rdb, n.o.Prefix) }

func (s *SeenStore) key(key string) string { return s.prefix + ":seen:" + key }

// SeenRecord returns key's value and when it expires (the zero time:
// never); a nil value and no error when there is none or it expired.
// One round trip (GET and PTTL in one MULTI).
func (s *SeenStore) SeenRecord(ctx context.Context, key string) ([]byte, time.Time, error) {
	k := s.key(key)
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		get, ttl = p.Get(ctx, k), p.PTTL(ctx, k)
		return nil
	})
	if errors.Is(err, redis.Nil) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("cluster: seen-record %s: %w", k, err)
	}
	val, err := get.Bytes()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("cluster: seen-record %s: %w", k, err)
	}
	var exp time.Time
	if d := ttl.Val(); d > 0 {
		exp = time.Now().Add(d)
	}
	return val, exp, nil
}

// seenTries bounds the retries of an update that other clients keep
// changing under it.
const seenTries = 100

// UpdateSeenRecord replaces key's value atomically with fn(old) (old nil
// when there is none), expiring ttl from now (ttl <= 0: never); a nil new
// value deletes it. fn may be called more than once (another client
// changed the key meanwhile) and must not keep old. An error from fn is
// returned as is and nothing is written.
func (s *SeenStore) UpdateSeenRecord(ctx context.Context, key string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error {
	k := s.key(key)
	var fnErr error
	update := func(tx *redis.Tx) error {
		old, err := tx.Get(ctx, k).Bytes()
		if errors.Is(err, redis.Nil) {
			old, err = nil, nil
		}
		if err != nil {
			return err
		}
		val, err := fn(old)
		if err != nil {
			fnErr = err
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			switch {
			case val == nil:
				p.Del(ctx, k)
			case ttl > 0:
				p.Set(ctx, k, val, ttl)
			default:
				p.Set(ctx, k, val, 0)
			}
			return nil
		})
		return err
	}
	for try := 1; ; try++ {
		err := s.rdb.Watch(ctx, update, k)
		switch {
		case err == nil:
			return nil
		case fnErr != nil:
			return fnErr
		case !errors.Is(err, redis.TxFailedErr):
			return fmt.Errorf("cluster: seen-record %s: %w", k, err)
		case try == seenTries:
			return fmt.Errorf("cluster: seen-record %s: changed by other clients during %d tries", k, seenTries)
		}
		t := time.NewTimer(time.Duration(rand.Int64N(int64(time.Millisecond) << min(try, 6))))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
