package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// Crash repair. A crawl killed with -9 leaves its last file as NAME.open
// (whole records up to some point, maybe the start of one more) and loses
// the index entries not yet saved (at most indexBatch, plus the responses
// being written). Open repairs both for every .open file in Dir that a
// dead process of this host wrote:
//
//   - the file is cut back after its last whole record, and after its last
//     whole exchange (a request record at the end, its response never
//     written, is cut too); its CDXJ index is written and it is renamed to
//     NAME; a file with no whole record is removed;
//   - the payload-digest entries are rebuilt from the response records of
//     that run's files past its last saved position (see runMark), so that
//     a resumed crawl writes revisits for payloads already in the files.
//
// The document map (near-duplicates' originals) is not rebuilt: a
// near-duplicate whose original lost its entry gets a metadata record
// without the original's record id.

// emptyDigest is the payload digest of an empty body (never indexed).
var emptyDigest = payloadDigest(nil)

// RepairStats counts what Open repaired.
type RepairStats struct {
	Files   int   // .open files closed
	Cut     int64 // bytes cut off their ends
	Removed int   // .open files removed (no whole record)
	Entries int   // payload-digest entries rebuilt
}

// fileName is PREFIX-TIMESTAMP-SERIAL-HOST-PID.warc.gz[.open].
var fileName = regexp.MustCompile(`^(.+)-(\d{17})-(\d{5,})-(.+)-(\d+)\.warc\.gz(\.open)?$`)

type runFile struct {
	path   string
	serial int
	open   bool
}

// processDead reports whether no process has id pid (never for this
// process); tests override it.
var processDead = func(pid int) bool { return pid != os.Getpid() && noProcess(pid) }

// runKey is the Index key of a run's saved position: every response record
// of this run's files before it has its payload-digest entry in the Index.
func runKey(host string, pid int) string { return fmt.Sprintf("warc/run/%s-%d", host, pid) }

// mark is a position in a run's files: the file's serial, an offset in it.
type mark struct {
	serial int
	offset int64
}

func (m mark) less(o mark) bool {
	return m.serial < o.serial || (m.serial == o.serial && m.offset < o.offset)
}

func (m mark) encode() []byte { return fmt.Appendf(nil, "%d %d", m.serial, m.offset) }

func decodeMark(b []byte) (mark, error) {
	var m mark
	_, err := fmt.Sscanf(string(b), "%d %d", &m.serial, &m.offset)
	return m, err
}

// repair closes the .open files left in o.Dir by dead processes of host.
func repair(ctx context.Context, o Options, host string) (RepairStats, error) {
	var st RepairStats
	ents, err := os.ReadDir(o.Dir)
	if err != nil {
		return st, fmt.Errorf("archive: %w", err)
	}
	runs := map[int][]runFile{}
	var crashed []int
	for _, e := range ents {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil || m[1] != o.Prefix || m[4] != host {
			continue
		}
		pid, _ := strconv.Atoi(m[5])
		serial, _ := strconv.Atoi(m[3])
		runs[pid] = append(runs[pid], runFile{path: filepath.Join(o.Dir, e.Name()), serial: serial, open: m[6] != ""})
		if m[6] != "" && !slices.Contains(crashed, pid) && processDead(pid) {
			crashed = append(crashed, pid)
		}
	}
	for _, pid := range crashed {
		files := runs[pid]
		slices.SortFunc(files, func(a, b runFile) int { return a.serial - b.serial })
		from := mark{}
		if b, err := o.Index.GetMeta(runKey(host, pid)); err == nil {
			if from, err = decodeMark(b); err != nil {
				return st, fmt.Errorf("archive: %s: %w", runKey(host, pid), err)
			}
		} else if !errors.Is(err, storage.ErrNotFound) {
			return st, fmt.Errorf("archive: read %s: %w", runKey(host, pid), err)
		}
		found := map[string][]byte{}
		for _, f := range files {
			if f.serial < from.serial {
				continue // every entry of its responses was saved
			}
			min := int64(0)
			if f.serial == from.serial {
				min = from.offset
			}
			collect := func(r *readRecord) {
				if r.typ != "response" || r.offset < min || r.truncated != "" || r.digest == "" || r.digest == emptyDigest {
					return
				}
				k := digestKey(r.digest)
				if _, ok := found[k]; ok {
					return
				}
				t, err := time.Parse(time.RFC3339Nano, r.date)
				if err != nil {
					return
				}
				found[k] = encodeRef(Ref{ID: r.id, URI: r.uri, Date: t})
			}
			if f.open {
				if err := repairFile(ctx, f.path, collect, &st); err != nil {
					return st, err
				}
			} else if _, _, _, err := indexFile(ctx, f.path, filepath.Base(f.path), collect); err != nil && !errors.Is(err, errTruncated) {
				return st, err
			}
		}
		missing := map[string][]byte{}
		for k, v := range found {
			_, err := o.Index.GetMeta(k)
			if errors.Is(err, storage.ErrNotFound) {
				missing[k] = v
			} else if err != nil {
				return st, fmt.Errorf("archive: look up %s: %w", k, err)
			}
		}
		if len(missing) > 0 {
			if err := o.Index.PutMetas(missing); err != nil {
				return st, fmt.Errorf("archive: save %d rebuilt payload-digest entries: %w", len(missing), err)
			}
		}
		st.Entries += len(missing)
	}
	return st, nil
}

// repairFile cuts the .open file path back to its last whole exchange,
// writes its CDXJ index and renames it without ".open"; or removes it if
// it holds no whole record. each sees every record kept.
func repairFile(ctx context.Context, path string, each func(*readRecord), st *RepairStats) error {
	final := strings.TrimSuffix(path, ".open")
	if _, err := os.Lstat(final); err == nil {
		return fmt.Errorf("archive: repair %s: %s exists", path, final)
	}
	var recs []*readRecord
	_, _, end, err := indexFile(ctx, path, filepath.Base(final), func(r *readRecord) { recs = append(recs, r) })
	if err != nil && !errors.Is(err, errTruncated) {
		return err
	}
	if n := len(recs); n > 0 && recs[n-1].typ == "request" {
		end = recs[n-1].offset // its response was never written
		recs = recs[:n-1]
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("archive: repair %w", err)
	}
	if len(recs) == 0 {
		st.Removed++
		st.Cut += fi.Size()
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("archive: repair %w", err)
		}
		return nil
	}
	if fi.Size() > end {
		if err := truncateSync(path, end); err != nil {
			return err
		}
		st.Cut += fi.Size() - end
	}
	x := &cdxIndexer{filename: filepath.Base(final)}
	for _, r := range recs {
		x.add(&r.cdxRecord)
		each(r)
	}
	x.add(nil)
	if err := writeFileAtomic(CDXJName(path), sortedCDXJ(x.lines)); err != nil {
		return err
	}
	if err := os.Rename(path, final); err != nil {
		return fmt.Errorf("archive: repair %w", err)
	}
	st.Files++
	return nil
}

func truncateSync(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("archive: repair %w", err)
	}
	err = errors.Join(f.Truncate(size), f.Sync(), f.Close())
	if err != nil {
		return fmt.Errorf("archive: repair %s: %w", path, err)
	}
	return nil
}
