package storage

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Free-space watch: every write (Commit, PutMeta) first asks the watch
// whether the store's filesystem still has more than Options.MinFreeBytes
// available. The watch samples statfs(2) at most once per
// spaceSampleBytes of writes or spaceSampleEvery, whichever comes first, so
// the hot path costs a mutex and a clock read; below the reserve it samples
// on every write (the writer is about to stop anyway).
const (
	spaceSampleBytes = 1 << 20
	spaceSampleEvery = time.Second
)

// Errors for a store whose disk cannot take more writes. Test with
// errors.Is; the errors returned wrap them.
var (
	// ErrNoSpace: the store's filesystem has less free space than
	// Options.MinFreeBytes (the write was refused before Badger saw it), or
	// a write failed with ENOSPC or EDQUOT. The error is a *NoSpaceError.
	ErrNoSpace = errors.New("storage: not enough free disk space")
	// ErrIO: a write failed with EIO (the disk or its filesystem failed).
	ErrIO = errors.New("storage: I/O error on the store's disk")
)

// NoSpaceError is ErrNoSpace with where and how much.
type NoSpaceError struct {
	Dir       string // store directory
	Mount     string // mount point of the filesystem that holds Dir ("" if unknown)
	Free      int64  // bytes available to this process when it was refused (-1 unknown)
	Reserve   int64  // Options.MinFreeBytes in force (negative: the watch is off)
	Memtables int64  // disk taken by memtable logs not yet flushed, which Close flushes into tables of at most that size
	Err       error  // the failed write (ENOSPC) when Badger or a blob write hit it; nil when the reserve refused the write first
}

func (e *NoSpaceError) Error() string {
	where := e.Dir
	if e.Mount != "" {
		where = fmt.Sprintf("the filesystem at %s (store %s)", e.Mount, e.Dir)
	}
	if e.Err != nil {
		return fmt.Sprintf("storage: disk full: %s free on %s: %v", FormatBytes(e.Free), where, e.Err)
	}
	return fmt.Sprintf("storage: disk nearly full: %s free on %s, below the %s it keeps (reserve %s + memtables to flush %s)",
		FormatBytes(e.Free), where, FormatBytes(e.Reserve+e.Memtables), FormatBytes(e.Reserve), FormatBytes(e.Memtables))
}

// Describe says what ran out, where and how much is free, for a person:
// "disk full: 1.2 MiB free on /mnt (store /mnt/crawl.db), below the
// 65.0 MiB the store keeps (store.min_free_bytes 64.0 MiB + 1.0 MiB of
// memtables to flush at close)"; reserve names the setting of Reserve
// (e.g. "store.min_free_bytes").
func (e *NoSpaceError) Describe(reserve string) string {
	where := e.Dir
	if e.Mount != "" {
		where = e.Mount + " (store " + e.Dir + ")"
	}
	if e.Err != nil {
		return fmt.Sprintf("disk full: %s free on %s: %v", FormatBytes(e.Free), where, e.Err)
	}
	free, need := FormatBytes(e.Free), FormatBytes(e.Reserve+e.Memtables)
	if free == need { // equal when rounded: say it in bytes
		free, need = fmt.Sprintf("%d bytes", e.Free), fmt.Sprintf("%d bytes", e.Reserve+e.Memtables)
	}
	return fmt.Sprintf("disk full: %s free on %s, below the %s the store keeps (%s %s + %s of memtables to flush at close)",
		free, where, need, reserve, FormatBytes(e.Reserve), FormatBytes(e.Memtables))
}

// Is makes errors.Is(err, ErrNoSpace) true.
func (e *NoSpaceError) Is(target error) bool { return target == ErrNoSpace }

// Unwrap returns the failed write's error, if any.
func (e *NoSpaceError) Unwrap() error { return e.Err }

// FormatBytes formats n bytes as "12.3 MiB" (binary units); negative n
// (unknown) as "?".
func FormatBytes(n int64) string {
	if n < 0 {
		return "?"
	}
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// Space is one reading of the free space on the store's filesystem.
type Space struct {
	Free      int64  // bytes available to this process (statfs f_bavail × f_bsize)
	Reserve   int64  // Options.MinFreeBytes in force; negative: the watch is off
	Memtables int64  // disk taken by Badger's memtable logs not yet flushed (DIR/*.mem)
	Mount     string // mount point of the filesystem that holds the store ("" if unknown)
}

// Need is the free space below which writes are refused: the reserve plus
// the memtables that Close must still flush. Negative: the watch is off.
func (s Space) Need() int64 {
	if s.Reserve < 0 {
		return -1
	}
	return s.Reserve + s.Memtables
}

// Low reports whether Free is under twice Need: the point from which
// progress output mentions the free space.
func (s Space) Low() bool { return s.Reserve >= 0 && s.Free < 2*s.Need() }

// Space samples the free space on the store's filesystem now. It fails on
// systems without statfs(2); on a read-only store Reserve is -1.
func (db *DB) Space() (Space, error) {
	free, err := freeBytes(db.dir)
	if err != nil {
		return Space{}, fmt.Errorf("storage: free space of %s: %w", db.dir, err)
	}
	sp := Space{Free: free, Reserve: -1, Mount: db.space.mountPoint()}
	if db.space != nil {
		sp.Reserve = db.space.reserve
		sp.Memtables = memtableBytes(db.dir)
	}
	return sp, nil
}

// spaceWatch decides whether a write may proceed.
type spaceWatch struct {
	dir     string
	reserve int64 // Options.MinFreeBytes; negative: off
	// memCap bounds the memtable logs: while free space exceeds reserve +
	// memCap, a sample need not list the directory to measure them.
	memCap int64
	statfs func(dir string) (int64, error) // freeBytes; tests count the calls
	memtab func(dir string) int64          // memtableBytes
	every  time.Duration                   // spaceSampleEvery

	mu      sync.Mutex
	pending int64     // bytes admitted since the last sample
	last    time.Time // time of the last sample
	free    int64     // free bytes at the last sample; -1 unknown
	mem     int64     // memtable bytes at the last sample (0 when not measured)

	mountOnce sync.Once
	mount     string
}

func newSpaceWatch(dir string, reserve, memCap int64) *spaceWatch {
	return &spaceWatch{dir: dir, reserve: reserve, memCap: memCap,
		statfs: freeBytes, memtab: memtableBytes, every: spaceSampleEvery, free: -1}
}

// admit accounts for a write of about n bytes and returns a *NoSpaceError
// when the filesystem's free space is below the reserve plus the memtables
// to flush. A failed statfs admits the write (the watch cannot tell;
// Badger's own errors remain).
func (w *spaceWatch) admit(n int64) error {
	if w == nil || w.reserve < 0 {
		return nil
	}
	w.mu.Lock()
	w.pending += n
	low := w.free >= 0 && w.free < w.reserve+w.mem
	if low || w.pending >= spaceSampleBytes || time.Since(w.last) >= w.every {
		w.sample()
	}
	free, mem := w.free, w.mem
	w.mu.Unlock()
	if free >= 0 && free < w.reserve+mem {
		return &NoSpaceError{Dir: w.dir, Mount: w.mountPoint(), Free: free, Reserve: w.reserve, Memtables: mem}
	}
	return nil
}

// sample reads the free space, and the memtable logs when they could
// matter. Called with w.mu held.
func (w *spaceWatch) sample() {
	w.pending = 0
	w.last = time.Now()
	f, err := w.statfs(w.dir)
	if err != nil {
		w.free, w.mem = -1, 0
		return
	}
	w.free, w.mem = f, 0
	if f < w.reserve+w.memCap {
		w.mem = w.memtab(w.dir)
	}
}

// low samples now and reports whether free space is below the reserve.
func (w *spaceWatch) low() bool {
	if w == nil || w.reserve < 0 {
		return false
	}
	f, err := w.statfs(w.dir)
	return err == nil && f < w.reserve+w.memtab(w.dir)
}

func (w *spaceWatch) mountPoint() string {
	if w == nil {
		return ""
	}
	w.mountOnce.Do(func() { w.mount = mountPoint(w.dir) })
	return w.mount
}

// IsDiskFull reports whether err is a write that failed for want of space
// (ENOSPC, EDQUOT), also when a library formatted the cause into its
// message instead of wrapping it (Badger formats with %+v).
func IsDiskFull(err error) bool {
	msg := err.Error()
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		strings.Contains(msg, syscall.ENOSPC.Error()) || strings.Contains(msg, syscall.EDQUOT.Error())
}

// diskError turns a write error caused by the disk into a *NoSpaceError
// (ENOSPC, EDQUOT) or an error wrapping ErrIO (EIO), naming where; other
// errors are returned unchanged. Badger formats the errors it wraps with
// %+v, which loses the chain, so the system's messages are matched too.
func (db *DB) diskError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case errors.Is(err, ErrNoSpace), errors.Is(err, ErrIO):
		return err
	case IsDiskFull(err):
		free, ferr := freeBytes(db.dir)
		if ferr != nil {
			free = -1
		}
		nse := &NoSpaceError{Dir: db.dir, Mount: db.space.mountPoint(), Free: free, Reserve: -1, Err: err}
		if db.space != nil {
			nse.Reserve, nse.Memtables = db.space.reserve, memtableBytes(db.dir)
		}
		return nse
	case errors.Is(err, syscall.EIO), strings.Contains(msg, syscall.EIO.Error()):
		where := db.dir
		if m := db.space.mountPoint(); m != "" {
			where = fmt.Sprintf("the filesystem at %s (store %s)", m, db.dir)
		}
		return fmt.Errorf("%w on %s: %v", ErrIO, where, err)
	}
	return err
}
