package storage

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// Large meta values (filter snapshots) are kept as files in DIR/blobs,
// named by their SHA-256, with a reference record in the Badger key
// space (namespace 'b'). Written into Badger, a snapshot that is replaced
// every few minutes would pile up in the value log: Badger's value-log GC
// only finds stale values through discard statistics gathered during LSM
// compactions, which a crawler's small key stream rarely triggers. A file
// is deleted the moment it is no longer referenced.
//
// Write order: blob file (temp, fsync, rename, fsync dir), then the
// reference in one transaction, then the old file is removed. A crash in
// between leaves an unreferenced file, which the next read-write Open
// removes.

const (
	nsBlobRef = 'b'
	// blobMin is the size from which PutMeta stores a value as a file.
	blobMin = 256 << 10
	blobDir = "blobs"
)

type blobRef struct {
	sum  [sha256.Size]byte
	size int64
}

func blobRefKey(key string) []byte { return append([]byte{nsBlobRef}, key...) }

func (r blobRef) name() string { return hex.EncodeToString(r.sum[:]) + ".blob" }

func encodeBlobRef(r blobRef) []byte {
	b := make([]byte, 0, 1+len(r.sum)+binary.MaxVarintLen64)
	b = append(b, 1)
	b = append(b, r.sum[:]...)
	return binary.AppendUvarint(b, uint64(r.size))
}

func decodeBlobRef(key string, v []byte) (blobRef, error) {
	var r blobRef
	if len(v) < 1+len(r.sum) || v[0] != 1 {
		return r, fmt.Errorf("%w: blob reference of meta %q is malformed", ErrCorrupt, key)
	}
	copy(r.sum[:], v[1:])
	size, n := binary.Uvarint(v[1+len(r.sum):])
	if n <= 0 || 1+len(r.sum)+n != len(v) {
		return r, fmt.Errorf("%w: blob reference of meta %q is malformed", ErrCorrupt, key)
	}
	r.size = int64(size)
	return r, nil
}

// writeBlob stores val as a content-addressed file and returns its ref.
func (db *DB) writeBlob(val []byte) (blobRef, error) {
	ref := blobRef{sum: sha256.Sum256(val), size: int64(len(val))}
	dir := filepath.Join(db.dir, blobDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ref, err
	}
	final := filepath.Join(dir, ref.name())
	if fi, err := os.Stat(final); err == nil && fi.Size() == ref.size {
		return ref, nil // same content already stored
	}
	f, err := os.CreateTemp(dir, "tmp-*")
	if err != nil {
		return ref, err
	}
	tmp := f.Name()
	_, err = f.Write(val)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
		return ref, err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return ref, nil
}

func (db *DB) readBlob(key string, ref blobRef) ([]byte, error) {
	path := filepath.Join(db.dir, blobDir, ref.name())
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: meta %q: blob %s: %v", ErrCorrupt, key, path, err)
	}
	if int64(len(b)) != ref.size || sha256.Sum256(b) != ref.sum {
		return nil, fmt.Errorf("%w: meta %q: blob %s does not match its checksum (%d bytes, want %d)", ErrCorrupt, key, path, len(b), ref.size)
	}
	return b, nil
}

// referencedBlobs returns the file names of every referenced blob.
func referencedBlobs(txn *badger.Txn) (map[string]bool, error) {
	refs := map[string]bool{}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsBlobRef}, PrefetchValues: true})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		key := string(it.Item().Key()[1:])
		if err := it.Item().Value(func(v []byte) error {
			r, err := decodeBlobRef(key, v)
			refs[r.name()] = true
			return err
		}); err != nil {
			return nil, err
		}
	}
	return refs, nil
}

// removeUnreferencedBlobs deletes blob files and temp files that no
// reference names. Callers hold db.metaMu (or run before the DB is
// shared).
func (db *DB) removeUnreferencedBlobs() error {
	dir := filepath.Join(db.dir, blobDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var refs map[string]bool
	if err := db.bdb.View(func(txn *badger.Txn) error {
		refs, err = referencedBlobs(txn)
		return err
	}); err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		name := e.Name()
		if refs[name] || !(strings.HasSuffix(name, ".blob") || strings.HasPrefix(name, "tmp-")) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
