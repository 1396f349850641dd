// Package redistest starts a real redis-server for tests.
package redistest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Start starts a redis-server on a free loopback port in a temp dir
// (no persistence) and returns its address; it is killed at cleanup. It
// skips when redis-server is missing, except in CI (BLOOMCRAWL_CI=1,
// where .ci/run installs it), where it fails.
func Start(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if _, serr := os.Stat("/usr/bin/redis-server"); serr == nil {
			bin = "/usr/bin/redis-server"
		} else if os.Getenv("BLOOMCRAWL_CI") == "1" {
			t.Fatal("redis-server not found (.ci/run installs the Debian package redis-server)")
		} else {
			t.Skip("redis-server not found: apt-get install redis-server to run the cluster tests")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; ; i++ { // bounded: 10 s
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(time.Second))
			c.Write([]byte("PING\r\n"))
			b := make([]byte, 7)
			n, _ := c.Read(b)
			c.Close()
			if string(b[:n]) == "+PONG\r\n" {
				return addr
			}
		}
		if i == 100 {
			t.Fatalf("redis-server on %s did not answer PING in 10 s; its output:\n%s", addr, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
