package storage

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"google.golang.org/protobuf/proto"
)

// checkTables verifies, read-only, the footer and index checksum of every
// Badger table (*.sst) that dir's MANIFEST lists. (Tables the MANIFEST
// does not list are leftovers of a flush or compaction cut short by a
// crash; Badger deletes them on open, which is its normal recovery.) Badger itself panics, in a goroutine
// no caller can recover, on a table whose footer points outside the file
// (a truncated or overwritten table); this check turns that into
// ErrCorrupt before Badger sees the table. The layout mirrors
// badger/v4/table.(*Table).initIndex: ... index | index length (4) |
// checksum (protobuf) | checksum length (4).
func checkTables(dir string) error {
	f, err := os.Open(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		return err
	}
	mf, _, err := badger.ReplayManifestFile(f, 0, badger.DefaultOptions(dir))
	f.Close()
	if err != nil {
		return fmt.Errorf("%w: MANIFEST: %v", ErrCorrupt, err)
	}
	ids := make([]uint64, 0, len(mf.Tables))
	for id := range mf.Tables {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		path := table.NewFilename(id, dir)
		if err := checkTable(path); err != nil {
			return fmt.Errorf("%w: table %s: %v", ErrCorrupt, filepath.Base(path), err)
		}
	}
	return nil
}

func checkTable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	readAt := func(off, n int64) ([]byte, error) {
		if off < 0 || n < 0 || off+n > size {
			return nil, fmt.Errorf("footer points at bytes %d..%d of a %d-byte file", off, off+n, size)
		}
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
			return nil, err
		}
		return b, nil
	}
	pos := size - 4
	b, err := readAt(pos, 4)
	if err != nil {
		return err
	}
	chkLen := int64(binary.BigEndian.Uint32(b))
	pos -= chkLen
	b, err = readAt(pos, chkLen)
	if err != nil {
		return err
	}
	var chk pb.Checksum
	if err := proto.Unmarshal(b, &chk); err != nil {
		return fmt.Errorf("checksum record: %v", err)
	}
	pos -= 4
	b, err = readAt(pos, 4)
	if err != nil {
		return err
	}
	idxLen := int64(binary.BigEndian.Uint32(b))
	pos -= idxLen
	idx, err := readAt(pos, idxLen)
	if err != nil {
		return err
	}
	if err := y.VerifyChecksum(idx, &chk); err != nil {
		return fmt.Errorf("index checksum: %v", err)
	}
	return nil
}
