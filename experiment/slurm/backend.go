package slurm

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// Backend is the matrix.Backend of `compare --backend slurm`: it submits
// the compare's missing and failed runs as one job array (Submit) and
// returns; `hyperctl status` follows them.
type Backend struct {
	Binary  string  // absolute path of hyperctl on the nodes
	Options Options // the job's resources (JobName is set from the folder)
	DryRun  bool    // print the script, submit nothing
	Runner  Runner  // nil: the commands on PATH
	Log     zerolog.Logger
}

// Run implements matrix.Backend. The tasks run on other machines, so the
// compare folder and the config are made absolute.
func (b Backend) Run(ctx context.Context, c matrix.Compare, w io.Writer) error {
	out, err := filepath.Abs(c.Out)
	if err != nil {
		return fmt.Errorf("compare: folder %s: %w", c.Out, err)
	}
	spec := c.Spec
	if spec.Config != "" {
		if spec.Config, err = filepath.Abs(spec.Config); err != nil {
			return fmt.Errorf("compare: config %s: %w", c.Spec.Config, err)
		}
	}
	opts := b.Options
	opts.JobName = "hyperctl-" + filepath.Base(out)
	r := b.Runner
	if r == nil {
		r = ExecRunner{}
	}
	req := Request{
		Out:      out,
		Manifest: c.Manifest,
		TrainArgs: func(env, ctrl string, seed int64, dir string) []string {
			return spec.TrainArgs(matrix.Cell{Env: env, Controller: ctrl, Seed: seed}, dir)
		},
		Binary:  b.Binary,
		Options: opts,
		DryRun:  b.DryRun,
	}
	res, err := Submit(ctx, r, req, w)
	if err != nil {
		return err
	}
	n := res.Status.Counts()
	total := len(res.Status.Runs)
	switch {
	case res.Tasks == 0:
		fmt.Fprintf(w, "compare: nothing to submit: of %d runs in %s, %d finished, %d running, %d pending. Follow with: hyperctl status %s\n",
			total, c.Out, n[matrix.Finished], n[matrix.Running], n[matrix.Pending], c.Out)
	case b.DryRun:
		b.Log.Info().Int("tasks", res.Tasks).Int("runs", total).Msg("compare on Slurm, dry run: the script above; nothing submitted")
	default:
		fmt.Fprintf(w, "compare: submitted Slurm job %s: %d array tasks (%d missing, %d failed) of %d runs; %d finished, %d running, %d pending. Script: %s. Follow with: hyperctl status %s\n",
			res.JobID, res.Tasks, n[matrix.Missing], n[matrix.Failed], total, n[matrix.Finished], n[matrix.Running], n[matrix.Pending],
			filepath.Join(c.Out, Dir, ScriptFile), c.Out)
	}
	return nil
}
