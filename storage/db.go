package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// FormatVersion is the key-schema version this package writes and reads.
// Open refuses stores of any other version with ErrVersion.
const FormatVersion uint32 = 1

// Errors returned by this package (and ErrBadDocID, returned by
// ParseDocID). Test for them with errors.Is; the returned errors wrap them
// with the operation and the object.
var (
	// ErrNotFound: no record with that key (URL, docId, meta key).
	ErrNotFound = errors.New("storage: not found")
	// ErrLocked: another process holds the store directory.
	ErrLocked = errors.New("storage: store is in use")
	// ErrCorrupt: Badger cannot read the store; nothing was modified.
	ErrCorrupt = errors.New("storage: store is corrupt or unreadable")
	// ErrVersion: the store has a format version this build cannot read.
	ErrVersion = errors.New("storage: unsupported store format version")
	// ErrNotStore: the directory exists, is not empty, and is not a
	// bloomcrawl store.
	ErrNotStore = errors.New("storage: not a bloomcrawl store")
	// ErrNeedsRecovery: a read-only open of a store that was not closed
	// cleanly; open it read-write once to replay its log.
	ErrNeedsRecovery = errors.New("storage: store was not closed cleanly and needs recovery (open it read-write once)")
	// ErrReadOnly: a write on a store opened with Options.ReadOnly.
	ErrReadOnly = errors.New("storage: store is open read-only")
	// ErrTooLarge: one Commit does not fit in one Badger transaction.
	ErrTooLarge = errors.New("storage: commit too large for one transaction")
	// ErrClosed: the DB was closed.
	ErrClosed = errors.New("storage: store is closed")
	// ErrBadCursor: a ListOptions.After that List did not return for the
	// same options.
	ErrBadCursor = errors.New("storage: bad cursor")
)

// DB is an open bloomcrawl store. It is safe for concurrent use; Close
// must be called once when done, after every other call has returned.
type DB struct {
	dir  string
	opts Options
	bdb  *badger.DB
	log  *slog.Logger

	queueSeq *badger.Sequence // nil when read-only
	traceSeq *badger.Sequence

	metaMu    sync.Mutex // serialises PutMeta/DeleteMeta (blob files)
	seenLocks seenLocks  // serialise updates of one seen-record key

	space *spaceWatch // nil when read-only

	stopGC chan struct{}
	gcDone chan struct{}

	closeOnce sync.Once
	closeErr  error
	closed    chan struct{}
}

// Open opens the store in dir, creating dir and a new store if dir does
// not exist or is empty. o may be nil for defaults.
//
// Errors: ErrLocked ("storage: store DIR is in use") when another process holds dir (a writer, or for a
// read-write open also a reader); ErrVersion for another format version;
// ErrNotStore when dir holds something else; ErrCorrupt when Badger cannot
// read the store (nothing is modified); ErrNeedsRecovery for a read-only
// open of a store that was not closed cleanly. All but ErrLocked are
// wrapped as "open store DIR: ...".
func Open(dir string, o *Options) (*DB, error) {
	opts, err := o.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	db, err := open(dir, opts)
	var le lockedError
	if errors.As(err, &le) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	return db, nil
}

// OpenReadOnly opens the store at dir read-only (Options.ReadOnly), as the
// query commands read it. A store that was not closed cleanly (a crawl was
// killed) is first recovered by one read-write open, which fails with
// ErrLocked while a crawl holds it. Errors are Open's.
func OpenReadOnly(dir string) (*DB, error) {
	db, err := Open(dir, &Options{ReadOnly: true})
	if !errors.Is(err, ErrNeedsRecovery) {
		return db, err
	}
	rw, err := Open(dir, nil)
	if err != nil {
		return nil, err
	}
	if err := rw.Close(); err != nil {
		return nil, err
	}
	return Open(dir, &Options{ReadOnly: true})
}

func open(dir string, opts Options) (*DB, error) {
	empty, err := prepareDir(dir, opts.ReadOnly)
	if err != nil {
		return nil, err
	}
	if !opts.ReadOnly && opts.MinFreeBytes >= 0 {
		// Opening writes: Badger flushes the memtable logs a crash left
		// behind into tables, and takes sequence leases. Refuse when even
		// that does not fit; the reserve itself is for Commit to enforce.
		if free, err := freeBytes(dir); err == nil {
			if mem := memtableBytes(dir); free < mem+spaceSampleBytes {
				return nil, &NoSpaceError{Dir: dir, Mount: mountPoint(dir), Free: free, Reserve: opts.MinFreeBytes, Memtables: mem}
			}
		}
	}
	if !empty {
		if err := checkTables(dir); err != nil {
			return nil, err
		}
		// Probe read-only first: a read-only open never replays or
		// truncates the log, so a store Badger cannot read is reported
		// before anything in it is rewritten.
		probe, err := badgerOpen(dir, opts.badgerOptions(dir, true))
		switch {
		case err == nil:
			if opts.ReadOnly {
				return finishOpen(dir, opts, probe)
			}
			if err := probe.Close(); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
		case isTruncateNeeded(err):
			if opts.ReadOnly {
				return nil, ErrNeedsRecovery
			}
			// Crash recovery: the read-write open below replays the log.
		case errors.Is(err, ErrNoSpace), errors.Is(err, ErrIO):
			return nil, err
		default:
			return nil, classifyOpenErr(dir, err)
		}
	}
	bdb, err := badgerOpen(dir, opts.badgerOptions(dir, opts.ReadOnly))
	if errors.Is(err, ErrNoSpace) || errors.Is(err, ErrIO) {
		return nil, err
	}
	if err != nil {
		return nil, classifyOpenErr(dir, err)
	}
	return finishOpen(dir, opts, bdb)
}

// badgerOpen is badger.Open, with a memory fault while it replays the
// memtable logs (it reads them through mmap in this goroutine) returned as
// an error instead of crashing the process: on tmpfs even reading a hole
// of a mapped file needs a free page, so a completely full tmpfs faults
// there; elsewhere a fault means an I/O error. Faults in Badger's own
// goroutines cannot be caught this way (debug.SetPanicOnFault is per
// goroutine); the free-space watch is what keeps them from happening.
func badgerOpen(dir string, o badger.Options) (bdb *badger.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		// A fault turned into a panic by SetPanicOnFault carries its
		// address; anything else is a bug to crash on.
		re, ok := r.(interface {
			runtime.Error
			Addr() uintptr
		})
		if !ok {
			panic(r)
		}
		fault := fmt.Errorf("reading a memory-mapped store file faulted at %#x (the filesystem could not supply the page)", re.Addr())
		if free, ferr := freeBytes(dir); ferr == nil && free < spaceSampleBytes {
			err = &NoSpaceError{Dir: dir, Mount: mountPoint(dir), Free: free, Reserve: -1, Err: fault}
			return
		}
		err = fmt.Errorf("%w in %s: %v", ErrIO, dir, fault)
	}()
	return badger.Open(o)
}

// prepareDir creates dir when missing and reports whether it is empty.
// A non-empty directory without a Badger MANIFEST is refused.
func prepareDir(dir string, readOnly bool) (empty bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if readOnly {
			return false, fmt.Errorf("%w: directory does not exist", ErrNotFound)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, err
		}
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if len(entries) == 0 {
		if readOnly {
			return false, fmt.Errorf("%w: directory is empty", ErrNotStore)
		}
		return true, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("%w: directory is not empty and has no MANIFEST (first entry %q)", ErrNotStore, entries[0].Name())
		}
		return false, err
	}
	return false, nil
}

// isTruncateNeeded reports whether err is Badger's ErrTruncateNeeded.
// Badger wraps its errors with "%+v" (y.Wrapf), which loses the error
// chain, so the message is matched.
func isTruncateNeeded(err error) bool {
	return errors.Is(err, badger.ErrTruncateNeeded) || strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error())
}

// lockedError is ErrLocked naming the directory.
type lockedError struct{ dir string }

func (e lockedError) Error() string        { return "storage: store " + e.dir + " is in use" }
func (e lockedError) Is(target error) bool { return target == ErrLocked }

func classifyOpenErr(dir string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Cannot acquire directory lock"):
		return lockedError{dir}
	case isTruncateNeeded(err):
		return ErrNeedsRecovery
	case errors.Is(err, fs.ErrPermission):
		return err
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// finishOpen checks or writes the format version and starts the GC loop.
func finishOpen(dir string, opts Options, bdb *badger.DB) (_ *DB, err error) {
	defer func() {
		if err != nil {
			bdb.Close()
		}
	}()
	if err := checkVersion(bdb, opts.ReadOnly); err != nil {
		return nil, err
	}
	db := &DB{dir: dir, opts: opts, bdb: bdb, log: opts.Logger, closed: make(chan struct{})}
	if !opts.ReadOnly {
		if err := indexQueue(bdb); err != nil {
			return nil, fmt.Errorf("%w: index the queue by URL: %v", ErrCorrupt, err)
		}
		if db.queueSeq, err = bdb.GetSequence(keySeqQueue, 1000); err != nil {
			return nil, err
		}
		if db.traceSeq, err = bdb.GetSequence(keySeqTrace, 1000); err != nil {
			db.queueSeq.Release()
			return nil, err
		}
		if err := db.removeUnreferencedBlobs(); err != nil {
			db.queueSeq.Release()
			db.traceSeq.Release()
			return nil, fmt.Errorf("remove unreferenced blobs: %w", err)
		}
		db.space = newSpaceWatch(dir, opts.MinFreeBytes, (numMemtables+1)*opts.MemTableSize)
		db.stopGC = make(chan struct{})
		db.gcDone = make(chan struct{})
		go db.gcLoop()
	}
	return db, nil
}

func checkVersion(bdb *badger.DB, readOnly bool) error {
	var ver []byte
	nonEmpty := false
	err := bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(keyVersion)
		if err == nil {
			ver, err = item.ValueCopy(nil)
			return err
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if k := it.Item().Key(); len(k) > 0 && k[0] != '!' {
				nonEmpty = true
				break
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: read format version: %v", ErrCorrupt, err)
	}
	if ver == nil {
		if nonEmpty {
			return fmt.Errorf("%w: Badger store without a bloomcrawl format version", ErrNotStore)
		}
		if readOnly {
			return fmt.Errorf("%w: empty Badger store", ErrNotStore)
		}
		v := binary.BigEndian.AppendUint32(nil, FormatVersion)
		return bdb.Update(func(txn *badger.Txn) error { return txn.Set(keyVersion, v) })
	}
	if len(ver) != 4 {
		return fmt.Errorf("%w: format version record is %d bytes, want 4", ErrCorrupt, len(ver))
	}
	if v := binary.BigEndian.Uint32(ver); v != FormatVersion {
		return fmt.Errorf("%w: store has version %d, this build reads version %d", ErrVersion, v, FormatVersion)
	}
	return nil
}

// Dir returns the directory the store was opened from.
func (db *DB) Dir() string { return db.dir }

// Close stops scheduled GC, runs value-log GC once, releases sequence
// leases, flushes the memtables and closes Badger. Only the first call
// does anything; later calls return the first result. Close must not run
// concurrently with other calls on db.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		close(db.closed)
		var errs []error
		if db.stopGC != nil {
			close(db.stopGC)
			<-db.gcDone
			if err := db.runGC(); err != nil {
				errs = append(errs, err)
			}
		}
		if db.queueSeq != nil {
			if err := db.queueSeq.Release(); err != nil {
				errs = append(errs, err)
			}
		}
		if db.traceSeq != nil {
			if err := db.traceSeq.Release(); err != nil {
				errs = append(errs, err)
			}
		}
		if err := db.bdb.Close(); err != nil {
			errs = append(errs, err)
		}
		if err := errors.Join(errs...); err != nil {
			db.closeErr = fmt.Errorf("close store %s: %w", db.dir, db.diskError(err))
		}
	})
	return db.closeErr
}

func (db *DB) isClosed() bool {
	select {
	case <-db.closed:
		return true
	default:
		return false
	}
}

func (db *DB) gcLoop() {
	defer close(db.gcDone)
	if db.opts.GCInterval < 0 {
		<-db.stopGC
		return
	}
	t := time.NewTicker(db.opts.GCInterval)
	defer t.Stop()
	for {
		select {
		case <-db.stopGC:
			return
		case <-t.C:
			if err := db.runGC(); err != nil {
				db.log.Warn("storage: value-log GC failed", "dir", db.dir, "err", err)
			}
		}
	}
}

// GC runs value-log garbage collection until no file qualifies for
// rewriting. It is safe to call concurrently with reads and writes.
func (db *DB) GC() error {
	if db.opts.ReadOnly {
		return ErrReadOnly
	}
	if db.isClosed() {
		return ErrClosed
	}
	return db.runGC()
}

func (db *DB) runGC() error {
	if db.space.low() {
		// A rewrite needs room for a file's live data before it frees
		// the old file: not below the reserve.
		db.log.Warn("storage: value-log GC skipped: free space below the reserve", "dir", db.dir, "reserve", db.space.reserve)
		return nil
	}
	for n := 0; n < 100; n++ {
		err := db.bdb.RunValueLogGC(db.opts.GCDiscardRatio)
		switch {
		case err == nil:
			db.log.Info("storage: value-log file rewritten", "dir", db.dir)
			continue
		case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected):
			return nil
		default:
			return fmt.Errorf("value-log GC in %s: %w", db.dir, db.diskError(err))
		}
	}
	return nil
}
