package service

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/internal/ground/httpguard"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// RunConfig is `hyperctl serve`'s configuration.
type RunConfig struct {
	// Pages, when set, serves every path outside the API (`hyperctl serve`
	// mounts the dashboard of its sessions there). It is given the server,
	// whose sessions it may read through List and Get, and the token,
	// which it must require as the API does ("" when there is none).
	Pages func(s *Server, token string) http.Handler

	Listen        string // host:port; port 0 picks a free one
	StateDir      string
	TokenFile     string // required for a non-loopback Listen
	AddrFile      string // if set, the bound address is written there once listening
	MaxSessions   int
	MaxBody       int64
	SnapshotEvery int
	KeepAwake     time.Duration // Options.KeepAwake: 0 is the default, negative is off
	Log           zerolog.Logger
	Version       string

	// The timeouts of each phase of a request (0: the Default*Timeout;
	// negative is a ConfigError): its headers, its body, its handling
	// (HandlerOptions), and a kept-alive connection's wait for the next one.
	HeaderTimeout, BodyTimeout, HandlerTimeout, IdleTimeout time.Duration
}

// ConfigError is a bad RunConfig (the CLI's usage errors). Msg names the
// fields as words.Words' placeholders ({listen}, {token-file}): it is a
// words.Worded error, whose Error names RunConfig's fields and whose In a
// command's flags.
type ConfigError struct{ Msg string }

// Error is the refusal in Go's words.
func (e *ConfigError) Error() string { return e.In(words.Go) }

// In is the refusal in w's words.
func (e *ConfigError) In(w words.Words) string { return w.Fill(e.Msg) }

// minToken is the shortest accepted token.
const minToken = 16

// ReadToken reads a token file: its content without surrounding space, at
// least 16 bytes.
func ReadToken(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", &ConfigError{fmt.Sprintf("{token-file}: %v", err)}
	}
	if st.Size() > 4096 {
		return "", &ConfigError{fmt.Sprintf("{token-file} %s: %d bytes; a token file holds one token", path, st.Size())}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &ConfigError{fmt.Sprintf("{token-file}: %v", err)}
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < minToken || strings.ContainsAny(tok, " \t\r\n") {
		return "", &ConfigError{fmt.Sprintf("{token-file} %s: want one token of at least %d characters without spaces (e.g. `head -c 32 /dev/urandom | base64 > %s`)", path, minToken, path)}
	}
	return tok, nil
}

// ServeExposes is what anyone who can reach `hyperctl serve` could do,
// for CheckListen's refusal.
const ServeExposes = "could drive your sessions"

// CheckListen refuses a non-loopback address unless a token protects it.
// A host name counts as loopback when every address it resolves to is.
// exposes says, for the refusal, what anyone who can reach the address
// could then do (ServeExposes for serve).
func CheckListen(ctx context.Context, listen string, haveToken bool, exposes string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return &ConfigError{fmt.Sprintf("{listen} %q: %v (want host:port, e.g. 127.0.0.1:8080)", listen, err)}
	}
	if haveToken {
		return nil
	}
	loopback := false
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	} else if host != "" {
		ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return &ConfigError{fmt.Sprintf("{listen} %q: %v", listen, err)}
		}
		loopback = len(ips) > 0
		for _, ip := range ips {
			loopback = loopback && ip.IP.IsLoopback()
		}
	}
	if !loopback {
		return &ConfigError{fmt.Sprintf("{listen} %q is not a loopback address: anyone who can reach it %s; give {token-file} to require a token, or listen on 127.0.0.1", listen, exposes)}
	}
	return nil
}

// Run checks the configuration, opens the state folder and serves until ctx
// is cancelled; then it stops accepting requests, lets running ones finish
// (up to 10 s) and closes the server, writing final snapshots.
func Run(ctx context.Context, cfg RunConfig) error {
	tok := ""
	if cfg.TokenFile != "" {
		var err error
		if tok, err = ReadToken(cfg.TokenFile); err != nil {
			return err
		}
		WarnTokenMode(cfg.TokenFile, cfg.Log)
	}
	if err := CheckListen(ctx, cfg.Listen, tok != "", ServeExposes); err != nil {
		return err
	}
	for _, t := range []struct {
		field string
		d     *time.Duration
		def   time.Duration
	}{ // hyperctl serve refuses a duration <= 0 itself, by its flag
		{"HeaderTimeout", &cfg.HeaderTimeout, DefaultHeaderTimeout},
		{"BodyTimeout", &cfg.BodyTimeout, DefaultBodyTimeout},
		{"HandlerTimeout", &cfg.HandlerTimeout, DefaultHandlerTimeout},
		{"IdleTimeout", &cfg.IdleTimeout, DefaultIdleTimeout},
	} {
		if *t.d < 0 {
			return &ConfigError{fmt.Sprintf("RunConfig.%s: want a duration > 0 (0: the default), got %v", t.field, *t.d)}
		}
		if *t.d == 0 {
			*t.d = t.def
		}
	}
	srv, err := New(Options{StateDir: cfg.StateDir, MaxSessions: cfg.MaxSessions, SnapshotEvery: cfg.SnapshotEvery, KeepAwake: cfg.KeepAwake, Log: cfg.Log, Version: cfg.Version})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := Listen(cfg.Listen)
	if err != nil {
		return err
	}
	if err := CheckBound(ln, cfg.Listen, tok != ""); err != nil {
		ln.Close()
		return err
	}
	addr := ln.Addr().String()
	if cfg.AddrFile != "" {
		if err := safefile.WritePrivate(cfg.AddrFile, []byte(addr+"\n")); err != nil {
			ln.Close()
			return &words.AdviceError{Msg: "{addr-file}: ", Err: err}
		}
	}
	var pages http.Handler
	if cfg.Pages != nil {
		pages = cfg.Pages(srv, tok)
	}
	hs := httpServer(serveHandler(srv, HandlerOptions{Token: tok, MaxBody: cfg.MaxBody, BodyTimeout: cfg.BodyTimeout, HandlerTimeout: cfg.HandlerTimeout}, pages), cfg.HeaderTimeout, cfg.IdleTimeout)
	cfg.Log.Info().Str("addr", addr).Str("state", cfg.StateDir).Bool("token", tok != "").Int("sessions", srv.Count()).Msg("serving")
	if pages != nil {
		cfg.Log.Info().Str("url", "http://"+addr+"/").Msg("dashboard of the sessions")
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(httpguard.Listener(ln, MaxConns)) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	cfg.Log.Info().Msg("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return srv.Close()
}

// MaxConns caps the connections `hyperctl serve` holds open at once
// (httpguard.Listener): more clients wait in the kernel's backlog, so no
// number of them, with a token or without, holds more of the server's file
// descriptors. Each connection is bounded in time by the header, body,
// handler and idle timeouts.
const MaxConns = 256

// serveHandler is what Run serves: the API (Server.Handler) and, when
// pages is not nil, every other path with pages, the whole behind
// httpguard, so that the body timeout and its Connection: close hold on
// every path (a page, a 404, the API's prefix without its slash).
func serveHandler(srv *Server, o HandlerOptions, pages http.Handler) http.Handler {
	h := srv.Handler(o)
	if pages == nil {
		return h
	}
	return httpguard.Handler(withPages(h, pages), o.BodyTimeout)
}

// httpServer is the HTTP server of `hyperctl serve`: HTTP/1.1 and h2c (gRPC
// without TLS), headers read within header, kept-alive connections closed
// after idle without a request. The body and handler deadlines are set per
// request by h (Server.Handler).
func httpServer(h http.Handler, header, idle time.Duration) *http.Server {
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{Handler: h, ReadHeaderTimeout: header, IdleTimeout: idle, Protocols: &protocols}
}
