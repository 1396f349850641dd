package api_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bloomcrawl/bloomcrawl/api"
)

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		token    bool
		needTok  bool // error wraps ErrNeedToken
		otherErr bool
	}{
		{"127.0.0.1:8080", false, false, false},
		{"127.1.2.3:0", false, false, false},
		{"[::1]:8080", false, false, false},
		{"localhost:8080", false, false, false},
		{"0.0.0.0:8080", false, true, false},
		{":8080", false, true, false},
		{"[::]:8080", false, true, false},
		{"192.168.1.5:8080", false, true, false},
		{"example.com:8080", false, true, false},
		{"0.0.0.0:8080", true, false, false},
		{"example.com:80", true, false, false},
		{"127.0.0.1", false, false, true},
		{"", false, false, true},
	} {
		err := api.CheckAddr(tc.addr, tc.token)
		switch {
		case tc.needTok && !errors.Is(err, api.ErrNeedToken):
			t.Errorf("CheckAddr(%q, %v) = %v, want ErrNeedToken", tc.addr, tc.token, err)
		case tc.otherErr && (err == nil || errors.Is(err, api.ErrNeedToken)):
			t.Errorf("CheckAddr(%q, %v) = %v, want an address error", tc.addr, tc.token, err)
		case !tc.needTok && !tc.otherErr && err != nil:
			t.Errorf("CheckAddr(%q, %v) = %v, want nil", tc.addr, tc.token, err)
		}
	}
}

// TestListenRefusesPublicWithoutToken checks that ListenAndServe itself, not
// only the command line, refuses a public address without a token.
func TestListenRefusesPublicWithoutToken(t *testing.T) {
	e := newEnv(t, api.HandlerOptions{})
	err := api.ListenAndServe(context.Background(), "0.0.0.0:0", e.srv.Config.Handler, api.ServerOptions{})
	if !errors.Is(err, api.ErrNeedToken) {
		t.Fatalf("ListenAndServe on 0.0.0.0 without a token: %v, want ErrNeedToken", err)
	}
	// A handler that is not ours cannot vouch for a token either.
	err = api.ListenAndServe(context.Background(), "0.0.0.0:0", http.NotFoundHandler(), api.ServerOptions{})
	if !errors.Is(err, api.ErrNeedToken) {
		t.Fatalf("ListenAndServe on 0.0.0.0 with a foreign handler: %v, want ErrNeedToken", err)
	}
}

// TestGracefulShutdown cancels the server's context while a request is in
// flight: the request must complete, and Serve return nil only after.
func TestGracefulShutdown(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "finished")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- api.Serve(ctx, ln, slow, api.ServerOptions{ShutdownTimeout: 10 * time.Second}) }()

	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-entered
	cancel()
	// Serve must not return while the request runs, and must stop
	// accepting new connections.
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v with a request in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Errorf("still accepting connections after shutdown began")
	}
	close(release)
	if s := <-got; s != "finished" {
		t.Errorf("in-flight request got %q, want it to finish", s)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve after graceful shutdown: %v", err)
	}
}

// TestShutdownTimeout checks that a request that outlives ShutdownTimeout is
// cut off and reported.
func TestShutdownTimeout(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	stuck := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- api.Serve(ctx, ln, stuck, api.ServerOptions{ShutdownTimeout: 50 * time.Millisecond}) }()
	go func() {
		if resp, err := http.Get("http://" + ln.Addr().String() + "/"); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	cancel()
	err = <-served
	if err == nil || !strings.Contains(err.Error(), "cut off") {
		t.Errorf("Serve with a stuck request: %v, want a shutdown error", err)
	}
}
