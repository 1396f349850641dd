package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// ServeLines is the batch form of the docId service ('bloomcrawl dedup'):
// it answers every line of r with exactly one JSON line on w, in order:
// s.SubmitJSON's answer to the request on that line (which is
// {"status":"error","error":"line N: ..."} for a line that is not a JSON
// object or not a valid request), or such an error for a line longer than
// maxLine bytes (naming the command's --max-line). Blank lines are errors
// too (every line gets its answer). Answers are flushed before every read
// that may block, so an interactive caller sees each one.
//
// It stops early only if ctx is cancelled, r or w fail, or the store's disk
// is full or failing (s.Err; the line that found it out is answered with an
// error, and the error returned names it). s decides; with a store behind
// it, it also records.
func (s *Service) ServeLines(ctx context.Context, r io.Reader, w io.Writer, maxLine int) error {
	lines := 0
	br := bufio.NewReaderSize(r, 1<<20)
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var line []byte
	for {
		if err := ctx.Err(); err != nil {
			bw.Flush()
			return err
		}
		// Flush before a read that may block, so that an interactive
		// caller sees each answer.
		if br.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return err
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
			return fmt.Errorf("read line %d: %w", lines+1, err)
		}
		lines++
		var resp Response
		if tooLong {
			resp = Response{Status: StatusError, Error: fmt.Sprintf("line %d: longer than %d bytes (--max-line)", lines, maxLine)}
		} else {
			resp = s.SubmitJSON(ctx, line, fmt.Sprintf("line %d", lines))
		}
		if err := enc.Encode(resp); err != nil {
			return fmt.Errorf("write answer to line %d: %w", lines, err)
		}
		if err := s.Err(); err != nil {
			// The store's disk is full or failing: every later line would
			// fail the same way.
			bw.Flush()
			return fmt.Errorf("line %d: %w", lines, err)
		}
		if err == io.EOF {
			break
		}
	}
	return bw.Flush()
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
