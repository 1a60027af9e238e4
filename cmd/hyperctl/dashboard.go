package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/controller/service"
	"github.com/hyperctl/hyperctl/experiment/dashboard"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

func newDashboardCmd(a *app) *cobra.Command {
	var listen, tokenFile, addrFile string
	var poll time.Duration
	cmd := &cobra.Command{
		Use:   "dashboard DIR",
		Short: "A live web page of the runs under DIR: states, progress, curves, a compare's grid",
		Long: `dashboard serves one web page for the runs under DIR: a single run folder,
a compare folder (with compare.json), or any folder of runs, searched
recursively. The page lists every run with its state (finished, running,
pending, failed or missing, as 'hyperctl status' decides) and its progress
(frames of the budget), draws the curves of one environment against frames,
every run overlaid and coloured by controller, or by run when there is one
controller, as in a population (training reward, mean episode return,
evaluation return and every hyperparameter train.csv logs), and shows
each compare's matrix as a grid of env × controller × seed. It asks the
server again every --poll, so it follows runs while they train, without
reloading.

It listens on loopback unless --token-file is given, as 'hyperctl serve'
does; with a token, open the page once as http://HOST:PORT/?token=TOKEN (it
then keeps the token in a cookie), or send "Authorization: Bearer TOKEN".`,
		Example: `  hyperctl dashboard runs/cmp                  # then open http://127.0.0.1:8422/
  hyperctl dashboard runs --listen 127.0.0.1:0 --addr-file addr.txt
  hyperctl dashboard /shared/cmp --listen 0.0.0.0:8422 --token-file ~/.hyperctl-token`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if poll < 200*time.Millisecond || poll > time.Minute {
				return usagef("--poll: want a duration in [200ms, 1m], got %v", poll)
			}
			src, err := dashboard.NewRuns(args[0], dashboard.RunsOptions{Poll: poll})
			if err != nil {
				return usagef("%v", err)
			}
			tok := ""
			if tokenFile != "" {
				if tok, err = service.ReadToken(tokenFile); err != nil {
					return usagef("dashboard: %w", err)
				}
				service.WarnTokenMode(tokenFile, a.log)
			}
			if err := service.CheckListen(cmd.Context(), listen, tok != "", dashboard.Exposes); err != nil {
				return usagef("dashboard: %w", err)
			}
			ln, err := service.Listen(listen)
			if err != nil {
				return fmt.Errorf("dashboard: %w", err)
			}
			defer ln.Close()
			if err := service.CheckBound(ln, listen, tok != ""); err != nil {
				var ce *service.ConfigError
				if errors.As(err, &ce) {
					return usagef("dashboard: %w", err)
				}
				return err
			}
			addr := ln.Addr().String()
			if addrFile != "" {
				if err := safefile.WriteAtomic(addrFile, []byte(addr+"\n")); err != nil {
					return fmt.Errorf("dashboard: --addr-file: %w", err)
				}
			}
			url := "http://" + addr + "/"
			if tok != "" {
				url += "?token=<the token in " + tokenFile + ">"
			}
			a.log.Info().Str("url", url).Str("dir", args[0]).Msg("dashboard: open this page")
			return dashboard.Serve(cmd.Context(), ln, dashboard.Handler(src, dashboard.Options{Token: tok}))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&listen, "listen", "127.0.0.1:8422", "address to listen on (host:port; port 0 picks a free port); a non-loopback address needs --token-file")
	fl.StringVar(&tokenFile, "token-file", "", "file holding the token every request must carry (at least 16 characters), as for 'hyperctl serve'")
	fl.StringVar(&addrFile, "addr-file", "", "write the bound address (host:port) to this file once listening")
	fl.DurationVar(&poll, "poll", 2*time.Second, "how often the page asks for new rows")
	return cmd
}
