package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/population"
	"github.com/hyperctl/hyperctl/experiment/slurm"
	"github.com/hyperctl/hyperctl/internal/ground/termtext"
)

const (
	backendLocal = "local"
	backendSlurm = "slurm"
)

// slurmFlagNames are compare's flags that only --backend slurm takes.
var slurmFlagNames = []string{"partition", "time", "cpus-per-task", "mem", "max-parallel", "sbatch-arg", "dry-run"}

func addSlurmFlags(fl *pflag.FlagSet, f *compareFlags) {
	fl.StringVar(&f.slurm.Partition, "partition", "", "slurm: partition (default: the cluster's default partition)")
	fl.StringVar(&f.slurm.Time, "time", "", "slurm: time limit per run, HH:MM:SS (default: the partition's); a run stopped at its limit checkpoints and requeues itself")
	fl.IntVar(&f.slurm.CPUsPerTask, "cpus-per-task", 1, "slurm: CPUs per run, also its libtorch threads and environment workers")
	fl.StringVar(&f.slurm.Mem, "mem", "", "slurm: memory per run, e.g. 2G (default: the cluster's)")
	fl.IntVar(&f.slurm.MaxParallel, "max-parallel", 0, "slurm: at most this many runs at once (the array's %K throttle; 0: no limit)")
	fl.StringArrayVar(&f.slurm.SbatchArgs, "sbatch-arg", nil, "slurm: an extra sbatch option for the script, e.g. --sbatch-arg=--account=proj (repeatable)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "slurm: print the batch script and submit nothing")
}

// checkBackendFlags refuses flags of the other backend.
func checkBackendFlags(cmd *cobra.Command, f *compareFlags) error {
	switch f.backend {
	case backendLocal:
		for _, n := range slurmFlagNames {
			if cmd.Flags().Changed(n) {
				return usagef("--%s: only with --backend slurm", n)
			}
		}
	case backendSlurm:
		if cmd.Flags().Changed("jobs") {
			return usagef("--jobs: only with --backend local; with slurm, --max-parallel limits the runs at once")
		}
		if err := f.slurm.Validate(); err != nil {
			return &usageError{err: err}
		}
	default:
		return usagef("--backend %q: want local or slurm", f.backend)
	}
	return nil
}

func newStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status DIR",
		Short: "Per run of a compare folder, or of any run folders: finished, running, ...",
		Long: `status lists every run of the matrix a compare recorded in DIR/compare.json:
  finished  summary.json exists
  running   a Slurm task runs it, or a process writes it now (train holds its lock)
  pending   a Slurm task for it waits in the queue
  failed    its last Slurm task ended without finishing it (the reason follows)
  missing   not finished, not queued, not being written, no failure recorded
            (not started, or stopped)
It reads the run folders and, when the compare was submitted with
--backend slurm, the queue (squeue and scontrol; not sacct, which needs
slurmdbd). 'compare --backend slurm' again submits the failed and missing runs.
PROGRESS is a run's frames against its frame budget when it has one (the
budget ends it before its iterations do), else its iterations against the
config's; --json gives both (frames_done, frames, iterations_done,
iterations).

Without compare.json, DIR is a single run folder or any folder with run
folders below it (found recursively), and each run is
  finished  summary.json exists
  running   a process writes it (holds its lock; its pid follows)
  stopped   unfinished, and no process writes it (continue it with 'hyperctl
            train --out RUN --resume')
A run that is a cell of a compare folder below DIR (a population's member)
is named by that compare's matrix, as 'hyperctl report' names it.

A population folder (hyperctl population) also gets two lines above its
members: its method, size, generations logged of all, finished or not, and
its best member; and its lineages, the starting members whose weights the
members' descend from after every exploit (one lineage: every member is a
copy of one starting member's line).`,
		Example: `  hyperctl status runs/cmp
  hyperctl status runs/cmp --json
  hyperctl status runs                 # every run folder below runs/
  hyperctl status runs/halfcheetah-hypercontroller-seed0
  hyperctl status runs/pop             # a population: its generations, best member and lineages, then its members`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStatusCmd(cmd, a, args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: every run and the counts")
	return cmd
}

func runStatusCmd(cmd *cobra.Command, a *app, dir string, asJSON bool) error {
	var pop *population.Status
	if ps, ok, err := population.ReadStatus(dir); err != nil {
		return err
	} else if ok {
		pop = &ps
		if !asJSON {
			var b strings.Builder
			if err := population.WriteStatus(&b, ps); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if _, err := io.WriteString(w, termtext.Fold(b.String(), termtext.Width(w))); err != nil {
				return err
			}
		}
	}
	man, err := matrix.ReadManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("status: %s is not a folder", dir)
		}
		runs, err := matrix.Folders(dir)
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			return fmt.Errorf("status: no run in %s: neither %s (a compare folder) nor a run folder (one holding %s) in it or below it", dir, matrix.ManifestFile, rundir.TrainCSV)
		}
		if err := population.MarkMemberFolders(runs); err != nil {
			return fmt.Errorf("status: %w", err)
		}
		return population.WriteFolderStatus(cmd.OutOrStdout(), dir, runs, pop, asJSON)
	}
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	st, err := slurm.Collect(cmd.Context(), dir, man, slurm.ExecRunner{})
	if err != nil {
		return err
	}
	for i := range st.Runs { // named as report names them (a population's members with its size)
		st.Runs[i].Controller = matrix.CellName(dir, man, st.Runs[i].Controller)
	}
	if err := population.MarkMembers(dir, &st); err != nil {
		return fmt.Errorf("status: %w", err)
	}
	if st.QueueErr != nil {
		a.log.Warn().Err(st.QueueErr).Msg("status: the Slurm queue could not be read; states come from the run folders alone")
	}
	w := cmd.OutOrStdout()
	if asJSON {
		counts, c := map[string]int{}, st.Counts()
		for _, s := range matrix.States {
			counts[s.String()] = c[s]
		}
		out := struct {
			Runs       []matrix.RunStatus `json:"runs"`
			Counts     map[string]int     `json:"counts"`
			SlurmJobs  []string           `json:"slurm_jobs,omitempty"`
			QueueError string             `json:"queue_error,omitempty"`
			Population *population.Status `json:"population,omitempty"`
		}{Runs: st.Runs, Counts: counts, SlurmJobs: man.JobIDs(), Population: pop}
		if st.QueueErr != nil {
			out.QueueError = st.QueueErr.Error()
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return matrix.WriteStatusTable(w, st, termtext.Width(w))
}
