package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hyperctl/hyperctl/internal/ground/httpguard"
)

// Exposes is what anyone who can reach a dashboard could do, for the
// refusal of a non-loopback address without a token (service.CheckListen).
const Exposes = "could read the runs under its folder (read-only: their names, states, progress, and the rows of their train.csv and eval.csv)"

// Serve serves h on ln until ctx is cancelled, then shuts down, letting
// requests in flight finish (up to 5 s). Every phase of a request has a
// timeout, so a client that stalls holds only its own connection: its
// headers 10 s, its body 10 s from the end of its headers on every path
// (httpguard: a reply begun before the body was read to its end closes
// the connection, so none of its bytes is parsed as a request), the whole
// request 30 s, the response 60 s (Handler also bounds each response's
// writing), an idle kept-alive connection 2 min; and at most MaxConns
// connections are open at once (more wait in the kernel's backlog).
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	return serve(ctx, ln, h, bodyTimeout)
}

// bodyTimeout bounds the reading of a request's body (httpguard.Handler).
const bodyTimeout = 10 * time.Second

// MaxConns caps the connections a dashboard holds open at once.
const MaxConns = 128

// serve is Serve with the body timeout given (tests shorten it).
func serve(ctx context.Context, ln net.Listener, h http.Handler, body time.Duration) error {
	hs := &http.Server{
		Handler:           httpguard.Handler(h, body),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	ln = httpguard.Listener(ln, MaxConns)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("dashboard: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("dashboard: shutdown: %w", err)
	}
	return nil
}
