package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/bloomcrawl/bloomcrawl/api"
	"github.com/bloomcrawl/bloomcrawl/configs"
	"github.com/bloomcrawl/bloomcrawl/contentdedup"
	"github.com/bloomcrawl/bloomcrawl/crawler"
	"github.com/bloomcrawl/bloomcrawl/storage"
)

func init() {
	register(command{
		name:    "dedup",
		summary: "assign docIds to JSON-lines documents on stdin (docId service, batch form)",
		run:     runDedup,
	})
}

// dedupStdin is where 'bloomcrawl dedup' reads from; tests replace it.
var dedupStdin io.Reader = os.Stdin

// defaultMaxLine is the longest input line 'bloomcrawl dedup' accepts.
const defaultMaxLine = 16 << 20

func runDedup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("dedup", "dedup [--threshold K] [--store DIR [--min-free-bytes N]] [--in FILE] < requests.jsonl > answers.jsonl", stderr)
	threshold := fs.Int("threshold", contentdedup.DefaultThreshold, "largest Hamming distance between content fingerprints that counts as a near-duplicate (0..6)")
	in := fs.String("in", "-", `read requests from FILE ("-" = stdin)`)
	store := fs.String("store", "", "record documents in this store and compare with everything stored before (default: in memory only)")
	maxLine := fs.Int("max-line", defaultMaxLine, "longest accepted input line in bytes (a longer line gets an error answer)")
	minFree := minFreeFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (requests come on stdin or --in)", fs.Arg(0))
	}
	if *threshold < 0 || *threshold > contentdedup.MaxThreshold {
		return usagef("--threshold %d: must be 0..%d", *threshold, contentdedup.MaxThreshold)
	}
	if *minFree < -1 {
		return usagef("--min-free-bytes %d: want >= 0 (0 = default) or -1 (off)", *minFree)
	}
	if *maxLine < 1 {
		return usagef("--max-line %d: must be positive", *maxLine)
	}
	r := dedupStdin
	if *in != "-" {
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	d, err := crawler.NewDeduper(configs.Dedup{SimHashThreshold: *threshold})
	if err != nil {
		return err
	}
	var db *storage.DB
	if *store != "" {
		db, err = storage.Open(*store, &storage.Options{MinFreeBytes: *minFree})
		if errors.Is(err, storage.ErrLocked) {
			return fmt.Errorf("open store %s: %w (one process owns a store: stop the crawl or server that holds it)", *store, err)
		}
		if err != nil {
			return fmt.Errorf("open store %s: %w", *store, err)
		}
	}
	svc, err := api.NewService(ctx, d, db, nil)
	if err == nil {
		_, err = dedupLines(ctx, svc, r, stdout, *maxLine)
	}
	if db != nil {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close store %s: %w", *store, cerr)
		}
	}
	return err
}

// dedupCounts sums up one dedupLines run.
type dedupCounts struct{ Lines, Good, Duplicate, Errors int }

// dedupLines answers every line of r with exactly one JSON line on w, in
// order: svc.SubmitJSON's answer to the request on that line (which is
// {"status":"error","error":"line N: ..."} for a line that is not a JSON
// object or not a valid request), or such an error for a line longer than
// maxLine bytes. Blank
// lines are errors too (every line gets its answer). It stops early only if
// ctx is cancelled, r or w fail, or the store's disk is full or failing
// (svc.Err; the line that found it out is answered with an error). svc decides; with a store behind it, it
// also records (this is the function a --store option reuses).
func dedupLines(ctx context.Context, svc *api.Service, r io.Reader, w io.Writer, maxLine int) (dedupCounts, error) {
	var c dedupCounts
	br := bufio.NewReaderSize(r, 1<<20)
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var line []byte
	for {
		if err := ctx.Err(); err != nil {
			bw.Flush()
			return c, err
		}
		// Flush before a read that may block, so that an interactive
		// caller sees each answer.
		if br.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return c, err
			}
		}
		var tooLong bool
		var err error
		line, tooLong, err = readLine(br, line[:0], maxLine)
		if err == io.EOF && len(line) == 0 && !tooLong {
			break
		}
		if err != nil && err != io.EOF {
			bw.Flush()
			return c, fmt.Errorf("read line %d: %w", c.Lines+1, err)
		}
		c.Lines++
		var resp api.Response
		if tooLong {
			resp = api.Response{Status: api.StatusError, Error: fmt.Sprintf("line %d: longer than %d bytes (--max-line)", c.Lines, maxLine)}
		} else {
			resp = svc.SubmitJSON(ctx, line, fmt.Sprintf("line %d", c.Lines))
		}
		switch {
		case resp.Status != api.StatusSuccess:
			c.Errors++
		case resp.FilterStatus == api.FilterDuplicate:
			c.Duplicate++
		default:
			c.Good++
		}
		if err := enc.Encode(resp); err != nil {
			return c, fmt.Errorf("write answer to line %d: %w", c.Lines, err)
		}
		if err := svc.Err(); err != nil {
			// The store's disk is full or failing: every later line would
			// fail the same way.
			bw.Flush()
			return c, fmt.Errorf("line %d: %w", c.Lines, err)
		}
		if err == io.EOF {
			break
		}
	}
	return c, bw.Flush()
}

// readLine appends the next line of br (without its line ending) to buf. If
// the line is longer than max bytes, the rest of it is read and dropped and
// tooLong is true. err is io.EOF after the last line.
func readLine(br *bufio.Reader, buf []byte, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > max+2 { // +2: the line ending is not counted
				tooLong = true
				buf = buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if !tooLong && len(buf) > max {
			tooLong, buf = true, buf[:0]
		}
		return buf, tooLong, err
	}
}
