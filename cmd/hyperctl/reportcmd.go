package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/internal/report"
)

func newReportCmd(a *app) *cobra.Command {
	var out, focus, reference string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Tables and plots (like the paper's Figures 1 and 2) from a compare folder",
		Long: `report reads DIR (made by 'hyperctl compare') and writes, into --out
(default DIR/report):

- report.md: a summary naming the leader of each environment and the rank of
  --focus; per environment, the median and interquartile range of the final
  training reward and final evaluation return, controller time per 1000
  iterations, total wall time and number of seeds; and, at equal experience,
  the evaluation return at a matched frame budget (the fewest frames any
  finished run of the environment trained on), the frames trained, and the
  final minus the best evaluation return of each run (stability); and, when
  the folder has the --reference row (default fixed), each controller
  against it at the matched budget: on how many environments its median is
  higher, and on how many seeds.
- PNG figures: median training reward and evaluation return against
  controller time and against wall time (log x axis, the paper's Figure 1),
  against frames trained (fig3), and box plots at the final iteration (the
  paper's Figure 2).

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
			if cmd.Flags().Changed("focus") && !slices.Contains(set.Controllers(), focus) {
				return &usageError{err: fmt.Errorf("report: --focus %q: no such controller in %s (it has %s)", focus, args[0], strings.Join(set.Controllers(), ", "))}
			}
			set.Focus = focus
			if cmd.Flags().Changed("reference") && !slices.Contains(set.Controllers(), reference) {
				return &usageError{err: fmt.Errorf("report: --reference %q: no such controller in %s (it has %s)", reference, args[0], strings.Join(set.Controllers(), ", "))}
			}
			set.Reference = reference
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
	cmd.Flags().StringVar(&focus, "focus", report.DefaultFocus, "controller whose rank the summary reports")
	cmd.Flags().StringVar(&reference, "reference", report.DefaultReference, "row every controller is compared with, seed by seed, at the matched budget (the \"Against\" section; skipped when the folder lacks it)")
	return cmd
}
