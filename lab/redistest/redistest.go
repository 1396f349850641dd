// Package redistest starts real redis-server processes, alone or as a
// Redis Cluster, for tests (Start, StartCluster) and for benchmarks
// (StartServer, CreateCluster).
package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Binary returns the path of redis-server (PATH, then /usr/bin).
func Binary() (string, error) {
	bin, err := exec.LookPath("redis-server")
	if err == nil {
		return bin, nil
	}
	if _, serr := os.Stat("/usr/bin/redis-server"); serr == nil {
		return "/usr/bin/redis-server", nil
	}
	return "", errors.New("redis-server not found (Debian package redis-server)")
}

// Server is a redis-server process listening on a loopback port.
type Server struct {
	Addr string // 127.0.0.1:PORT
	Bus  int    // the cluster bus port of a cluster-enabled server
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freePort returns a TCP port free on 127.0.0.1 a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// StartServer starts bin (redis-server) on a free loopback port with its
// files in dir, without persistence, and waits (10 s at most) until it
// answers PING. With cluster set it is a Redis Cluster
// node (cluster-enabled, its nodes file in dir, its bus on another free
// port), with no slots yet: see CreateCluster.
func StartServer(bin, dir string, cluster bool) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir}
	bus := 0
	if cluster {
		bus, err = freePort()
		if err != nil {
			return nil, err
		}
		args = append(args, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", "5000")
	}
	return launch(bin, fmt.Sprintf("127.0.0.1:%d", port), bus, args)
}

// launch starts bin with args (listening on addr) and waits (10 s at
// most) until it answers PING.
func launch(bin, addr string, bus int, args []string) (*Server, error) {
	s := &Server{Addr: addr, Bus: bus, cmd: exec.Command(bin, args...), out: &syncBuffer{}, done: make(chan struct{})}
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	dieWithParent(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	for i := 0; ; i++ { // bounded: 10 s
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			c.SetDeadline(time.Now().Add(time.Second))
			c.Write([]byte("PING\r\n"))
			b := make([]byte, 7)
			n, _ := c.Read(b)
			c.Close()
			if string(b[:n]) == "+PONG\r\n" {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("redis-server on %s exited; its output:\n%s", s.Addr, s.out.String())
		default:
		}
		if i == 100 {
			s.Close()
			return nil, fmt.Errorf("redis-server on %s did not answer PING in 10 s; its output:\n%s", s.Addr, s.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Close kills the server and waits for it to exit.
func (s *Server) Close() {
	s.cmd.Process.Kill()
	<-s.done
}

// Output is what the server printed so far.
func (s *Server) Output() string { return s.out.String() }

// CreateCluster makes one Redis Cluster of the cluster-enabled servers,
// all masters, no replicas: it gives each an equal range of the
// 16384 slots (CLUSTER ADDSLOTSRANGE), introduces the others to the first
// (CLUSTER MEET) and waits (20 s at most) until every node reports
// cluster_state:ok, knows all the nodes and maps every slot.
func CreateCluster(ctx context.Context, servers []*Server) error {
	const slots = 16384
	var addrs []string
	for _, s := range servers {
		addrs = append(addrs, s.Addr)
	}
	var clients []*redis.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for i, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		clients = append(clients, c)
		lo, hi := i*slots/len(addrs), (i+1)*slots/len(addrs)-1
		if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err(); err != nil {
			return fmt.Errorf("redistest: %s: CLUSTER ADDSLOTSRANGE %d %d: %w", a, lo, hi, err)
		}
	}
	for _, s := range servers[1:] {
		h, p, _ := net.SplitHostPort(s.Addr)
		if err := clients[0].Do(ctx, "CLUSTER", "MEET", h, p, s.Bus).Err(); err != nil {
			return fmt.Errorf("redistest: %s: CLUSTER MEET %s %d: %w", addrs[0], s.Addr, s.Bus, err)
		}
	}
	var last string
	for i := 0; i < 200; i++ { // bounded: 20 s
		ok := true
		for j, c := range clients {
			info, err := c.ClusterInfo(ctx).Result()
			if err != nil {
				return fmt.Errorf("redistest: %s: CLUSTER INFO: %w", addrs[j], err)
			}
			if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(len(addrs))+"\r") ||
				!strings.Contains(info, "cluster_slots_ok:"+strconv.Itoa(slots)) {
				ok, last = false, addrs[j]+":\n"+info
				break
			}
			ranges, err := c.ClusterSlots(ctx).Result()
			if err != nil {
				return fmt.Errorf("redistest: %s: CLUSTER SLOTS: %w", addrs[j], err)
			}
			if len(ranges) != len(addrs) {
				ok, last = false, fmt.Sprintf("%s: CLUSTER SLOTS has %d ranges", addrs[j], len(ranges))
				break
			}
		}
		if ok {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("redistest: the cluster of %v is not ready after 20 s; last seen %s", addrs, last)
}

// binary returns redis-server's path, or skips t when it is missing,
// except in CI (BLOOMCRAWL_CI=1, where .ci/run installs it), where it
// fails t.
func binary(t *testing.T) string {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv("BLOOMCRAWL_CI") == "1" {
			t.Fatal("redis-server not found (.ci/run installs the Debian package redis-server)")
		}
		t.Skip("redis-server not found: apt-get install redis-server to run the cluster tests")
	}
	return bin
}

// Start starts a redis-server on a free loopback port in a temp dir
// (no persistence) and returns its address; it is killed at cleanup. It
// skips when redis-server is missing, except in CI (BLOOMCRAWL_CI=1,
// where .ci/run installs it), where it fails.
func Start(t *testing.T) string {
	t.Helper()
	s, err := StartServer(binary(t), t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.Addr
}

// StartCluster starts a Redis Cluster of masters redis-servers (no
// replicas) on free loopback ports, each in its own temp dir, and returns
// their addresses once the cluster is ready; they are killed at cleanup.
// A missing redis-server is treated as by Start.
func StartCluster(t *testing.T, masters int) []string {
	t.Helper()
	bin := binary(t)
	var servers []*Server
	var addrs []string
	for range masters {
		s, err := StartServer(bin, t.TempDir(), true)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		servers = append(servers, s)
		addrs = append(addrs, s.Addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := CreateCluster(ctx, servers); err != nil {
		t.Fatal(err)
	}
	return addrs
}

// ClusterURL is the --cluster URL of a Redis Cluster at addrs.
func ClusterURL(addrs []string) string {
	u := "redis+cluster://" + addrs[0]
	for i, a := range addrs[1:] {
		if i == 0 {
			u += "?"
		} else {
			u += "&"
		}
		u += "addr=" + a
	}
	return u
}
