package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	_ "github.com/hyperctl/hyperctl/baselines/all" // register every controller
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/all" // register the environments
	"github.com/hyperctl/hyperctl/envs/mujoco"
	"github.com/hyperctl/hyperctl/internal/ground/termtext"
)

func mujocoVersion() string {
	v := mujoco.Version()
	return fmt.Sprintf("%d.%d.%d", v/100, v/10%10, v%10)
}

func newEnvsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "envs",
		Short: "List the registered environments",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tID\tOBS\tACT\tMAX STEPS\tALIASES")
			for _, s := range envs.List() {
				aliases := "-"
				if len(s.Aliases) > 0 {
					aliases = fmt.Sprint(s.Aliases)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", s.Name, s.ID, s.Observation.Dim(), s.Action.Dim(), s.MaxEpisodeSteps, aliases)
			}
			return tw.Flush()
		},
	}
}

func newControllersCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "controllers",
		Short: "List the registered hyperparameter controllers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var b strings.Builder
			tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSUMMARY")
			hang := len("NAME")
			for _, e := range controller.Entries() {
				fmt.Fprintf(tw, "%s\t%s\n", e.Name, e.Summary)
				hang = max(hang, len(e.Name))
			}
			fmt.Fprintf(tw, "%s\t%s\n", configs.Fixed, "no controller: PPO with the configured hyperparameters (the default of train; the reference baseline)")
			if err := tw.Flush(); err != nil {
				return err
			}
			w := cmd.OutOrStdout() // summaries folded under SUMMARY on a terminal
			_, err := io.WriteString(w, termtext.FoldAt(b.String(), termtext.Width(w), hang+2))
			return err
		},
	}
}
