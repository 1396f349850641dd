package storage

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/klauspost/compress/zstd"
)

// Options configures Open. The zero value (or a nil *Options) gives the
// defaults documented on each field.
type Options struct {
	// ReadOnly opens the store with a shared lock: several read-only
	// processes may open it at once, but not while a writer holds it
	// (ErrLocked), and not when it needs crash recovery (ErrNeedsRecovery).
	// Commit and PutMeta return ErrReadOnly. Default false.
	ReadOnly bool

	// SyncWrites makes every commit msync to disk, so that committed pages
	// survive power loss and not only a process crash. Default false.
	SyncWrites bool

	// GCInterval is the period of value-log garbage collection while the
	// store is open. 0 means 10 minutes; a negative value disables the
	// scheduled runs (GC still runs once at Close).
	GCInterval time.Duration

	// GCDiscardRatio is the fraction of stale data a value-log file must
	// hold before GC rewrites it. 0 means 0.5. Must be in (0, 1).
	GCDiscardRatio float64

	// MemTableSize is Badger's memtable size in bytes; it also bounds the
	// size of one Commit (about 15% of it). 0 means 64 MiB.
	MemTableSize int64

	// BlockCacheSize is Badger's block cache in bytes. 0 means 64 MiB;
	// negative means none (blocks are read from the mapped table files).
	BlockCacheSize int64

	// Compression is the zstd level of page text and HTML: "fastest",
	// "default", "better" or "best" (klauspost/compress/zstd levels).
	// "" means "fastest" (BenchmarkCommit, 4 writers: 5.7% more disk than
	// "default", 20-50% more pages per second). The level can change
	// between runs (each record says how it is stored).
	Compression string

	// MinFreeBytes is the free space the store keeps on its filesystem
	// besides what flushing its memtables needs: when the free space falls
	// below MinFreeBytes plus the disk taken by the memtable logs not yet
	// flushed (DIR/*.mem, measured), Commit and PutMeta refuse to write and
	// return a *NoSpaceError (ErrNoSpace), so that Close can still flush
	// the memtables and the store closes consistent instead of Badger
	// faulting on a full disk. The free space is sampled with statfs(2)
	// once per MiB written or per second. 0 means DefaultMinFreeBytes (257
	// MiB); a negative value turns the watch off.
	MinFreeBytes int64

	// Logger receives Badger's log lines (info and above) and this
	// package's GC messages. nil discards them.
	Logger *slog.Logger

	zlevel zstd.EncoderLevel // from Compression
}

func (o *Options) withDefaults() (Options, error) {
	var r Options
	if o != nil {
		r = *o
	}
	if r.GCInterval == 0 {
		r.GCInterval = 10 * time.Minute
	}
	if r.GCDiscardRatio == 0 {
		r.GCDiscardRatio = 0.5
	}
	if r.GCDiscardRatio <= 0 || r.GCDiscardRatio >= 1 {
		return r, fmt.Errorf("storage: Options.GCDiscardRatio %v out of range (0, 1)", r.GCDiscardRatio)
	}
	if r.MemTableSize == 0 {
		r.MemTableSize = 64 << 20
	}
	if r.MemTableSize < 1<<20 {
		return r, fmt.Errorf("storage: Options.MemTableSize %d below 1 MiB", r.MemTableSize)
	}
	if r.BlockCacheSize == 0 {
		r.BlockCacheSize = 64 << 20
	}
	if r.MinFreeBytes == 0 {
		r.MinFreeBytes = DefaultMinFreeBytes
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	switch r.Compression {
	case "default":
		r.zlevel = zstd.SpeedDefault
	case "", "fastest":
		r.zlevel = zstd.SpeedFastest
	case "better":
		r.zlevel = zstd.SpeedBetterCompression
	case "best":
		r.zlevel = zstd.SpeedBestCompression
	default:
		return r, fmt.Errorf("storage: Options.Compression %q: want fastest, default, better or best", r.Compression)
	}
	return r, nil
}

// Badger sizes fixed by this package (see doc.go, "Badger options").
const (
	valueLogFileSize = 256 << 20
	numMemtables     = 3
)

// tableCompression is the block compression of the LSM tables this package
// writes: none (see doc.go, "Badger options"). Tables written with another
// compression by earlier versions keep theirs (Badger's manifest records it
// per table) and are read as before; a test sets it to write such tables.
var tableCompression = options.None

// DefaultMinFreeBytes is the default Options.MinFreeBytes, 257 MiB: one
// value-log file (Badger creates each one with ftruncate at twice this
// size, sparse on Linux filesystems but allocated at once where files
// cannot be sparse; and a value-log GC writes up to one file's live data
// before it deletes the old file) plus what may be written between two
// samples of the free space (1 MiB). The memtables to flush come on top,
// measured.
const DefaultMinFreeBytes = valueLogFileSize + spaceSampleBytes

// badgerOptions maps Options to Badger's; the choices are documented in
// doc.go ("Badger options").
func (o Options) badgerOptions(dir string, readOnly bool) badger.Options {
	return badger.DefaultOptions(dir).
		WithReadOnly(readOnly).
		WithSyncWrites(o.SyncWrites).
		WithLogger(badgerLogger{o.Logger}).
		WithValueThreshold(1 << 10).
		WithCompression(tableCompression).
		WithMemTableSize(o.MemTableSize).
		WithNumMemtables(numMemtables).
		WithNumCompactors(2).
		WithBlockCacheSize(max(o.BlockCacheSize, 0)).
		WithValueLogFileSize(valueLogFileSize).
		WithDetectConflicts(true).
		WithChecksumVerificationMode(options.OnBlockRead).
		WithVerifyValueChecksum(true).
		WithMetricsEnabled(false)
}

// badgerLogger adapts *slog.Logger to badger.Logger. Badger's debug lines
// are dropped.
type badgerLogger struct{ l *slog.Logger }

func (b badgerLogger) log(level slog.Level, format string, args ...any) {
	if !b.l.Enabled(context.Background(), level) {
		return
	}
	b.l.Log(context.Background(), level, strings.TrimSpace(fmt.Sprintf(format, args...)), "component", "badger")
}

func (b badgerLogger) Errorf(f string, a ...any)   { b.log(slog.LevelError, f, a...) }
func (b badgerLogger) Warningf(f string, a ...any) { b.log(slog.LevelWarn, f, a...) }
func (b badgerLogger) Infof(f string, a ...any)    { b.log(slog.LevelInfo, f, a...) }
func (b badgerLogger) Debugf(string, ...any)       {}
