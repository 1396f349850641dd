package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ServerOptions configures [ListenAndServe] and [Serve]. The zero value is
// the default.
type ServerOptions struct {
	// ShutdownTimeout bounds the graceful shutdown after ctx is cancelled:
	// in-flight requests get this long to finish before their connections
	// are closed. Default 30s.
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// http.Server's. Defaults 10s, 2m, 2m and 2m (a batch of 1000 documents
	// takes a while to decide).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// OnListen, when set, is called with the bound address (useful with
	// port 0) once the listener is open and before requests are served.
	OnListen func(addr net.Addr)
	// Logger receives the server's own errors (TLS handshakes, panics in
	// handlers). nil discards.
	Logger *slog.Logger
}

func (o ServerOptions) withDefaults() ServerOptions {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ShutdownTimeout, 30*time.Second)
	def(&o.ReadHeaderTimeout, 10*time.Second)
	def(&o.ReadTimeout, 2*time.Minute)
	def(&o.WriteTimeout, 2*time.Minute)
	def(&o.IdleTimeout, 2*time.Minute)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// ErrNeedToken is returned (wrapped, naming the address) by CheckAddr,
// ListenAndServe and Serve for a non-loopback address without a token.
var ErrNeedToken = errors.New("api: a non-loopback address needs a bearer token (--token)")

// CheckAddr reports whether the API may listen on addr ("host:port"):
// loopback addresses (127.0.0.0/8, ::1, "localhost") are always allowed;
// any other host, including "" and "0.0.0.0" (every interface) and host
// names, only when hasToken. The error wraps ErrNeedToken, or says why addr
// is malformed.
func CheckAddr(addr string, hasToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("api: listen address %q: %v (want host:port, e.g. 127.0.0.1:8080)", addr, err)
	}
	if hasToken || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("listen on %s: %w", addr, ErrNeedToken)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hasToken reports whether h is a handler from NewHandler that checks a
// bearer token.
func hasToken(h http.Handler) bool {
	a, ok := h.(interface{ authenticated() bool })
	return ok && a.authenticated()
}

// ListenAndServe serves h on addr until ctx is cancelled, then shuts down
// gracefully: it stops accepting, lets in-flight requests finish (up to
// o.ShutdownTimeout) and returns nil. It refuses (ErrNeedToken) a
// non-loopback addr unless h is a NewHandler handler with a Token. Any
// other return is a listen or serve error. Closing the store is the
// caller's job, after ListenAndServe returns.
//
// A server beside other work runs it in a goroutine:
//
//	h := api.NewHandler(svc, db, api.HandlerOptions{Token: tok})
//	g.Go(func() error { return api.ListenAndServe(ctx, addr, h, api.ServerOptions{}) })
//
// (`crawl --serve ADDR` listens before its crawl starts and serves on that
// listener with Serve: console.ServeCrawl.)
func ListenAndServe(ctx context.Context, addr string, h http.Handler, o ServerOptions) error {
	if err := CheckAddr(addr, hasToken(h)); err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("api: %w", err)
	}
	return Serve(ctx, ln, h, o)
}

// Serve is ListenAndServe on an open listener, which it closes. It applies
// the same loopback rule to ln's address.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o ServerOptions) error {
	if err := CheckAddr(ln.Addr().String(), hasToken(h)); err != nil {
		ln.Close()
		return err
	}
	o = o.withDefaults()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if o.OnListen != nil {
		o.OnListen(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("api: serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	<-errc // http.ErrServerClosed once Shutdown has begun
	if err != nil {
		srv.Close()
		return fmt.Errorf("api: shut down %s: %w (requests still running after %v were cut off)", ln.Addr(), err, o.ShutdownTimeout)
	}
	return nil
}
