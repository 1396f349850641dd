package samplesite

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Start serves a new Site (default Options) on 127.0.0.1 at a free port.
// See (*Site).Start.
func Start(ctx context.Context) (baseURL string, stop func(), err error) {
	return New().Start(ctx)
}

// Start serves s on 127.0.0.1 at a free port (never on other interfaces)
// and returns its base URL ("http://127.0.0.1:PORT", no trailing slash).
// The server stops when ctx is done or stop is called, whichever comes
// first; stop closes every connection, waits for the server to finish and
// may be called any number of times. A Site may be started more than once;
// all its servers share its request log.
func (s *Site) Start(ctx context.Context) (baseURL string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("samplesite: listen: %w", err)
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		// Serve returns http.ErrServerClosed after Close; any other error
		// means the listener broke, and requests then fail at the client.
		_ = srv.Serve(ln)
	}()
	var once sync.Once
	halt := func() {
		once.Do(func() { srv.Close() }) //nolint:errcheck // closing listeners we own
		<-served
	}
	watch := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			halt()
		case <-watch:
		}
	}()
	var stopOnce sync.Once
	stop = func() {
		stopOnce.Do(func() { close(watch) })
		halt()
	}
	return "http://" + ln.Addr().String(), stop, nil
}
