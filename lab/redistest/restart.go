package redistest

import (
	"strconv"
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
	time.Sleep(down)
	s, err := launch(r.bin, r.Addr, 0, r.args)
	if err != nil {
		return err
	}
	r.Server = s
	return nil
}
