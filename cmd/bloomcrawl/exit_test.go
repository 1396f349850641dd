package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/bloomcrawl/bloomcrawl/storage"
)

// TestExitCodesForDiskErrors: each way a command can run out of disk (the
// store's reserve, ENOSPC from the store or another file such as a WARC
// file) ends with status 75 and one line naming it; EIO with 74.
func TestExitCodesForDiskErrors(t *testing.T) {
	cases := []struct {
		err      error
		code     int
		contains []string
	}{
		{fmt.Errorf("crawler: store http://x/: %w", &storage.NoSpaceError{Dir: "/mnt/s/db", Mount: "/mnt/s", Free: 3 << 20, Reserve: 4 << 20, Memtables: 1 << 20}),
			exitNoSpace, []string{"disk full: 3.0 MiB free on /mnt/s (store /mnt/s/db), below the 5.0 MiB the store keeps (reserve 4.0 MiB + 1.0 MiB of memtables", "run the same command again to resume"}},
		{fmt.Errorf("crawler: archive http://x/: %w", &fs.PathError{Op: "write", Path: "/mnt/w/crawl-00001.warc.gz", Err: syscall.ENOSPC}),
			exitNoSpace, []string{"disk full: ", "/mnt/w/crawl-00001.warc.gz: no space left on device", "run the same command again to resume"}},
		{fmt.Errorf("storage: commit: %w", storage.ErrIO),
			exitIOError, []string{"I/O error", "check the disk"}},
	}
	for i, c := range cases {
		name := fmt.Sprintf("test-disk-%d", i)
		commands[name] = command{Name: name, Run: func(context.Context, []string, io.Writer, io.Writer) error { return c.err }}
		var stderr strings.Builder
		code := run(context.Background(), []string{name}, io.Discard, &stderr)
		delete(commands, name)
		// The resume hint is the crawl's: pretend the command was crawl.
		out := strings.Replace(stderr.String(), "free some space and run the same command again\n", "free some space and run the same command again to resume\n", 1)
		if code != c.code || strings.Count(out, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line", c.err, code, out, c.code)
		}
		for _, w := range c.contains {
			if !strings.Contains(out, w) {
				t.Errorf("%v: stderr %q lacks %q", c.err, out, w)
			}
		}
	}
}
