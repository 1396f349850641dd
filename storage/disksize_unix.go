//go:build unix

package storage

import (
	"io/fs"
	"syscall"
)

// allocatedSize is the disk space a file occupies. Badger preallocates its
// value-log and memtable files (sparse, hundreds of MB), so the apparent
// size overstates a young store by orders of magnitude.
func allocatedSize(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
