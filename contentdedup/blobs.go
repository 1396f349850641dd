package contentdedup

import (
	"fmt"
	"os"

	"github.com/bloomcrawl/bloomcrawl/internal/mapped"
)

// spillChunk is how many bytes a blobLog gathers in memory before writing
// them to its file.
const spillChunk = 1 << 20

// blobLog is an append-only byte log holding what a [Deduper] needs only for
// the few candidates a lookup returns (sketches and first URLs), so that it
// is not kept in memory for every document: in memory when it has no file,
// else in an unlinked temporary file (removed by the system when it is
// closed, or when the process dies) with the last, unwritten bytes in
// memory. Reads of written bytes go through the page cache. Not safe for
// concurrent use (the Deduper's lock guards it).
type blobLog struct {
	f     *os.File // nil: everything is in mem
	mem   []byte   // the bytes from offset base on
	base  int64
	chunk int   // bytes gathered before a write (spillChunk; tests lower it)
	err   error // first write or read error of the file
}

// newBlobLog returns a blobLog in dir ("" = in memory).
func newBlobLog(dir string) (*blobLog, error) {
	if dir == "" {
		return &blobLog{}, nil
	}
	f, err := mapped.TempFile(dir, "bloomcrawl-dedup-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("contentdedup: spill file: %w", err)
	}
	return &blobLog{f: f, chunk: spillChunk, mem: make([]byte, 0, spillChunk)}, nil
}

// add appends the concatenation of parts and returns its offset.
func (b *blobLog) add(parts ...[]byte) int64 {
	off := b.base + int64(len(b.mem))
	for _, p := range parts {
		b.mem = append(b.mem, p...)
	}
	if b.f != nil && b.err == nil && len(b.mem) >= b.chunk {
		if _, err := b.f.WriteAt(b.mem, b.base); err != nil {
			// keep everything from base on in memory from now on: slower
			// to grow, but nothing is lost
			b.err = fmt.Errorf("contentdedup: spill file: %w", err)
			return off
		}
		b.base += int64(len(b.mem))
		b.mem = b.mem[:0]
	}
	return off
}

// read fills dst with the bytes at off. A read error of the file (which
// the system's page cache makes unlikely) leaves dst zeroed and is kept
// for Err.
func (b *blobLog) read(off int64, dst []byte) {
	if off >= b.base {
		copy(dst, b.mem[off-b.base:])
		return
	}
	if _, err := b.f.ReadAt(dst, off); err != nil {
		clear(dst)
		if b.err == nil {
			b.err = fmt.Errorf("contentdedup: spill file: read %d bytes at %d: %w", len(dst), off, err)
		}
	}
}

func (b *blobLog) close() error {
	if b.f == nil {
		return nil
	}
	err := b.f.Close()
	b.f, b.mem = nil, nil
	return err
}
