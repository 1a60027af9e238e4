package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/internal/report"
)

func newReportCmd(a *app) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Tables and plots (like the paper's Figures 1 and 2) from a compare folder",
		Long: `report reads DIR (made by 'hyperctl compare') and writes, into --out
(default DIR/report): report.md with one table per environment (median and
interquartile range of the final training reward and final evaluation return,
controller time per 1000 iterations, total wall time, number of seeds), and
PNG figures: median training reward and evaluation return against controller
time and against wall time (log x axis), and box plots at the final iteration.
It works on partial results and lists missing or unfinished runs. The tables
are also printed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := report.Load(args[0])
			if err != nil {
				return err
			}
			if len(set.Runs) == 0 {
				return fmt.Errorf("report: no runs with data in %s (expected %s/<env>/<controller>/seed<N>/train.csv)", args[0], args[0])
			}
			if out == "" {
				out = filepath.Join(args[0], "report")
			}
			files, err := set.Write(out)
			if err != nil {
				return err
			}
			if err := set.Markdown(cmd.OutOrStdout()); err != nil {
				return err
			}
			for _, f := range files {
				a.log.Info().Str("file", f).Msg("wrote")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output folder (default DIR/report)")
	return cmd
}
