package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/controller/service"
	"github.com/hyperctl/hyperctl/experiment/dashboard"
)

func newServeCmd(a *app) *cobra.Command {
	cfg := service.RunConfig{}
	var keepAwake time.Duration
	var check bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve controllers over the network to trainers in any language (Connect/gRPC/JSON)",
		Long: `serve runs hyperctl's controller driver as a service. A trainer creates a
session (its hyperparameter space, a controller and its settings), then each
iteration asks for a configuration (Suggest) and reports the training reward
(Observe). Observe's reply carries the next iteration's configuration (its
"next" field, what Suggest would return), so after the first iteration a
round is one request. The API is controller/service/proto/hyperctl/v1/service.proto,
served with Connect: gRPC, gRPC-Web, and plain JSON over HTTP/1.1, e.g.

  curl -s -H 'Content-Type: application/json' -d '{}' \
    http://127.0.0.1:8421/hyperctl.v1.ControllerService/Health

controller/service/python/hyperctl is a standard-library Python client.

Sessions are durable: every observation is fsync'd to --state before it is
acknowledged, and a restart on the same --state (after a crash or kill -9)
continues every session exactly. One server at a time holds --state.

Only a torn last record (a write cut short by a crash, never acknowledged:
the file ends inside it, or a 512-byte sector of it was never written) is
cut, with a warning. A session whose files cannot be restored (any other
damaged record, a snapshot ahead of its log or one its method refuses) is
quarantined: the server logs it with the file and the reason, answers its
requests with FAILED_PRECONDITION naming them, changes none of its files,
and serves every other session. --check reports every session's state
without serving and without changing any file, and exits 1 when a session
would be quarantined.

Every phase of a request has a timeout (--header-timeout, --body-timeout,
--handler-timeout, --idle-timeout): a client that stalls is cut off while
the others are served.

The server listens on loopback unless --token-file is given; then every
request needs "Authorization: Bearer <token>". The same address serves a
live web page of the sessions (http://ADDR/: each session's reward,
objective and suggested values against the observation), behind the same
token: open it once as http://ADDR/?token=<token>.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.Log = a.log
			cfg.Version = version
			cfg.Pages = func(s *service.Server, token string) http.Handler {
				return dashboard.Handler(dashboard.NewSessions(s, "sessions in "+cfg.StateDir, 0), dashboard.Options{Token: token})
			}
			if keepAwake < 0 {
				return usagef("--keep-awake: want a duration >= 0 (0: off), got %v", keepAwake)
			}
			for flag, d := range map[string]time.Duration{"--header-timeout": cfg.HeaderTimeout, "--body-timeout": cfg.BodyTimeout, "--handler-timeout": cfg.HandlerTimeout, "--idle-timeout": cfg.IdleTimeout} {
				if d <= 0 {
					return usagef("%s: want a duration > 0, got %v", flag, d)
				}
			}
			cfg.KeepAwake = keepAwake
			if keepAwake == 0 {
				cfg.KeepAwake = -1 // off
			}
			if abs, err := filepath.Abs(cfg.StateDir); err == nil {
				cfg.StateDir = abs
			}
			if check {
				return checkState(cmd.OutOrStdout(), a, cfg.StateDir)
			}
			err := service.Run(cmd.Context(), cfg)
			var ce *service.ConfigError
			if errors.As(err, &ce) {
				return usagef("serve: %w", err)
			}
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cfg.Listen, "listen", "127.0.0.1:8421", "address to listen on (host:port; port 0 picks a free port); a non-loopback address needs --token-file")
	fl.StringVar(&cfg.StateDir, "state", "hyperctl-state", "folder holding the sessions (created if missing; locked while the server runs)")
	fl.StringVar(&cfg.TokenFile, "token-file", "", "file holding the bearer token every request must carry (at least 16 characters)")
	fl.StringVar(&cfg.AddrFile, "addr-file", "", "write the bound address (host:port) to this file once listening")
	fl.IntVar(&cfg.MaxSessions, "max-sessions", 1024, "most sessions the server holds")
	fl.Int64Var(&cfg.MaxBody, "max-body", service.DefaultMaxBody, "largest request body in bytes")
	fl.IntVar(&cfg.SnapshotEvery, "snapshot-every", 100, "observations between snapshots of a session (a restart replays at most this many)")
	fl.DurationVar(&cfg.HeaderTimeout, "header-timeout", service.DefaultHeaderTimeout, "a request's headers must arrive within this, or its connection is closed")
	fl.DurationVar(&cfg.BodyTimeout, "body-timeout", service.DefaultBodyTimeout, "a request's body must arrive within this after its headers, or it is answered 504 and its connection closed")
	fl.DurationVar(&cfg.HandlerTimeout, "handler-timeout", service.DefaultHandlerTimeout, "a request's deadline after its headers: one still waiting for its session is refused (DEADLINE_EXCEEDED, not applied), and a response not written by then closes the connection")
	fl.DurationVar(&cfg.IdleTimeout, "idle-timeout", service.DefaultIdleTimeout, "a kept-alive connection without a next request is closed after this")
	fl.BoolVar(&check, "check", false, "report every session of --state (restored, or quarantined with the file and the reason) without serving or changing any file; exit 1 if any would be quarantined")
	fl.DurationVar(&keepAwake, "keep-awake", service.DefaultKeepAwake, "while one request at a time is served, keep a CPU from idling (at the lowest priority, SCHED_IDLE) during each request and this long after it, for lower latency; 0 turns it off")
	return cmd
}

// checkState is `serve --check`: one line per session of the state folder.
func checkState(w io.Writer, a *app, state string) error {
	states, err := service.Check(state, a.log)
	if err != nil {
		return fmt.Errorf("serve --check: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tMETHOD\tITERATIONS\tSTATE")
	bad := 0
	for _, st := range states {
		if st.Failure != "" {
			bad++
			fmt.Fprintf(tw, "%s\t%s\t-\tquarantined: %s\n", st.ID, cmp.Or(st.Method, "?"), st.Failure)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\tok\n", st.ID, st.Method, st.Iteration)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d sessions, %d would be served, %d quarantined\n", state, len(states), len(states)-bad, bad)
	if bad > 0 {
		return fmt.Errorf("serve --check: %d of %d sessions in %s cannot be restored (see above); the server would serve the others", bad, len(states), state)
	}
	return nil
}
