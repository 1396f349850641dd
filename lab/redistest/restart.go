package redistest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Restartable is a redis-server a test kills (SIGKILL) and starts again on
// the same port and directory: with persistence in its args
// ("--appendonly", "yes") it reloads its data, without it comes back
// empty.
type Restartable struct {
	*Server
	bin, dir string
	args     []string
}

// StartRestartable starts a redis-server on a free loopback port in a temp
// dir with args added (default: no persistence, as Start); it is killed at
// cleanup. A missing redis-server is treated as by Start.
func StartRestartable(t *testing.T, args ...string) *Restartable {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	r := &Restartable{bin: binary(t), dir: t.TempDir()}
	r.args = append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", r.dir}, args...)
	if r.Server, err = launch(r.bin, "127.0.0.1:"+strconv.Itoa(port), 0, r.args); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// Restart kills the server (SIGKILL, as a crash), waits down, and starts
// it again on its port and directory, waiting until it answers.
func (r *Restartable) Restart(down time.Duration) error {
	r.Server.Close()
	return r.startAfter(down)
}

// startAfter waits down and starts the server again on its port and
// directory.
func (r *Restartable) startAfter(down time.Duration) error {
	time.Sleep(down)
	s, err := launch(r.bin, r.Addr, 0, r.args)
	if err != nil {
		return err
	}
	r.Server = s
	return nil
}

// SaveAOF copies the server's append-only directory (Redis 7: the
// manifest, then the base and incremental files) while it runs, to a new
// directory it returns: what a crash of the machine would leave on disk
// if the writes after this moment had not been synced yet (a command cut
// short at the end is dropped at load: aof-load-truncated, the default).
func (r *Restartable) SaveAOF() (string, error) {
	src := filepath.Join(r.dir, "appendonlydir")
	dst, err := os.MkdirTemp(filepath.Dir(r.dir), "aof-saved-")
	if err != nil {
		return "", err
	}
	names, err := os.ReadDir(src)
	if err != nil {
		return "", err
	}
	// the manifest first: the files it names exist as long as the server
	// does not rewrite the AOF meanwhile
	rank := func(e os.DirEntry) int {
		if strings.HasSuffix(e.Name(), ".manifest") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(names, func(a, b os.DirEntry) int { return rank(a) - rank(b) })
	for _, e := range names {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return "", err
		}
	}
	return dst, nil
}

// RestartFrom kills the server (SIGKILL), puts the append-only directory
// saved by SaveAOF in place of its own, waits down and starts it again on
// its port: Redis comes back with what it had when SaveAOF ran, as after a
// machine crash that lost the writes since.
func (r *Restartable) RestartFrom(saved string, down time.Duration) error {
	r.Server.Close()
	aof := filepath.Join(r.dir, "appendonlydir")
	if err := os.RemoveAll(aof); err != nil {
		return err
	}
	if err := os.Rename(saved, aof); err != nil {
		return err
	}
	return r.startAfter(down)
}
