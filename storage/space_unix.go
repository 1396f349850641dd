//go:build unix

package storage

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// freeBytes is the space available to this process on dir's filesystem
// (statfs f_bavail × f_bsize: without the blocks reserved for root, which
// a crawl running as root could still use; the conservative figure).
func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// mountPoint is the topmost ancestor of dir on the same device as dir: the
// mount point of its filesystem ("" if dir cannot be examined).
func mountPoint(dir string) string {
	p, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	dev := func(path string) (uint64, bool) {
		fi, err := os.Stat(path)
		if err != nil {
			return 0, false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		return uint64(st.Dev), ok
	}
	d, ok := dev(p)
	if !ok {
		return ""
	}
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		if pd, ok := dev(parent); !ok || pd != d {
			return p
		}
		p = parent
	}
}

// memtableBytes is the disk taken by Badger's memtable write-ahead logs in
// dir (*.mem, allocated blocks: the files are sparse). Flushing a memtable
// writes an L0 table of at most that size (the same entries, compressed,
// plus a small index and Bloom filter).
func memtableBytes(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".mem") {
			continue
		}
		if info, err := e.Info(); err == nil {
			n += allocatedSize(info)
		}
	}
	return n
}
