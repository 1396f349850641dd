package storage

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSeenRecordStore: missing keys read as nil, updates replace, a nil
// update deletes, the TTL is Badger's, and fn's error writes nothing.
func TestSeenRecordStore(t *testing.T) {
	db := mustOpen(t, t.TempDir())
	ctx := context.Background()
	if v, exp, err := db.SeenRecord(ctx, "k"); v != nil || !exp.IsZero() || err != nil {
		t.Fatalf("missing key: %q %v %v", v, exp, err)
	}
	set := func(val string) error {
		return db.UpdateSeenRecord(ctx, "k", time.Hour, func([]byte) ([]byte, error) { return []byte(val), nil })
	}
	if err := set("one"); err != nil {
		t.Fatal(err)
	}
	v, exp, err := db.SeenRecord(ctx, "k")
	if string(v) != "one" || err != nil || exp.Before(time.Now().Add(59*time.Minute)) || exp.After(time.Now().Add(61*time.Minute)) {
		t.Fatalf("after set: %q, expires %v, %v", v, exp, err)
	}
	boom := errors.New("boom")
	if err := db.UpdateSeenRecord(ctx, "k", time.Hour, func([]byte) ([]byte, error) { return []byte("two"), boom }); err != boom {
		t.Fatalf("fn error: %v", err)
	}
	if v, _, _ := db.SeenRecord(ctx, "k"); string(v) != "one" {
		t.Fatalf("a failed update wrote %q", v)
	}
	if existed, err := db.DeleteSeenRecord(ctx, "k"); !existed || err != nil {
		t.Fatalf("delete: %v %v", existed, err)
	}
	if v, _, _ := db.SeenRecord(ctx, "k"); v != nil {
		t.Fatalf("deleted key reads %q", v)
	}
	if err := db.UpdateSeenRecord(ctx, "", time.Hour, nil); err == nil {
		t.Fatal("empty key accepted")
	}
}
