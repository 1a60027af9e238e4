package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/controller/service"
)

func newServeCmd(a *app) *cobra.Command {
	cfg := service.RunConfig{}
	var keepAwake time.Duration
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

The server listens on loopback unless --token-file is given; then every
request needs "Authorization: Bearer <token>".`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.Log = a.log
			cfg.Version = version
			if keepAwake < 0 {
				return usagef("--keep-awake: want a duration >= 0 (0: off), got %v", keepAwake)
			}
			cfg.KeepAwake = keepAwake
			if keepAwake == 0 {
				cfg.KeepAwake = -1 // off
			}
			if abs, err := filepath.Abs(cfg.StateDir); err == nil {
				cfg.StateDir = abs
			}
			err := service.Run(cmd.Context(), cfg)
			var ce *service.ConfigError
			if errors.As(err, &ce) {
				return usagef("serve: %v", err)
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
	fl.DurationVar(&keepAwake, "keep-awake", service.DefaultKeepAwake, "while one request at a time is served, keep a CPU from idling (at the lowest priority, SCHED_IDLE) during each request and this long after it, for lower latency; 0 turns it off")
	return cmd
}
