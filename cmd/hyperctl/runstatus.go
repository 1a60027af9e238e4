package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/analysis"
)

// Run-folder states of `hyperctl status` outside a compare folder.
const (
	runFinished = "finished" // summary.json exists
	runRunning  = "running"  // a process holds the folder's lock
	runStopped  = "stopped"  // unfinished and no process writes it
)

// folderRun is one run folder found by `hyperctl status` outside a compare
// folder.
type folderRun struct {
	Dir        string `json:"dir"`
	Env        string `json:"env"`
	Controller string `json:"controller"`
	Seed       int64  `json:"seed"`
	State      string `json:"state"`
	Done       int    `json:"iterations_done"`
	Iterations int    `json:"iterations"` // the config's (0: unknown)
	FramesDone int64  `json:"frames_done"`
	Frames     int64  `json:"frames,omitempty"` // the config's frame budget (absent: none)
	Detail     string `json:"detail,omitempty"`
}

// folderStatus is the state of every run folder in root (rundir.Runs):
// finished, running (a process holds its lock) or stopped. Runs are named
// as report names them: a cell of a compare folder below root (such as a
// population's member) by its matrix, else by its config.toml.
func folderStatus(root string) ([]folderRun, error) {
	found, err := rundir.Runs(root)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	out := make([]folderRun, 0, len(found))
	ms := analysis.Matrices{}
	for _, f := range found {
		r := folderRun{Dir: f.Dir}
		if id, err := rundir.ReadIdentity(f.Dir); err == nil {
			r.Iterations, r.Frames = id.Iterations, id.Frames
		}
		if env, ctrl, seed, err := ms.RunName(root, f.Dir); err != nil {
			r.Env, r.Controller, r.Detail = "?", "?", err.Error()
		} else {
			r.Env, r.Controller, r.Seed = env, ctrl, seed
		}
		if it, fr, ok := rundir.LastRow(f.Dir); ok {
			r.Done, r.FramesDone = it+1, fr
		}
		switch pid, held, herr := rundir.Holder(f.Dir); {
		case f.Finished:
			r.State = runFinished
			if s, err := rundir.ReadSummary(f.Dir); err == nil {
				r.Done, r.FramesDone = s.Iterations, s.Frames
				r.Detail = fmt.Sprintf("%.0f s wall time", s.WallTimeS)
			}
		case herr != nil:
			r.State = runStopped
			r.Detail = fmt.Sprintf("its lock could not be probed: %v", herr)
		case held:
			r.State = runRunning
			r.Detail = fmt.Sprintf("pid %d", pid)
		default:
			r.State = runStopped
			r.Detail = "continue with: hyperctl train --out " + f.Dir + " --resume"
		}
		out = append(out, r)
	}
	return out, nil
}

// printFolderStatus prints folderStatus's runs as a table or JSON, with
// pop (a population folder's status; nil for none) in the JSON.
func printFolderStatus(w io.Writer, root string, runs []folderRun, pop *popStatus, asJSON bool) error {
	counts := map[string]int{}
	for _, r := range runs {
		counts[r.State]++
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Runs       []folderRun    `json:"runs"`
			Counts     map[string]int `json:"counts"`
			Population *popStatus     `json:"population,omitempty"`
		}{runs, counts, pop})
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tENV\tCONTROLLER\tSEED\tSTATE\tPROGRESS\tDETAIL")
	for _, r := range runs {
		rel, err := filepath.Rel(root, r.Dir)
		if err != nil {
			rel = r.Dir
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", rel, r.Env, r.Controller, r.Seed, r.State, progressText(r.Done, r.Iterations, r.FramesDone, r.Frames), r.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var parts []string
	for _, s := range []string{runFinished, runRunning, runStopped} {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	noun := "runs"
	if len(runs) == 1 {
		noun = "run"
	}
	_, err := fmt.Fprintf(w, "status: %d %s: %s\n", len(runs), noun, strings.Join(parts, ", "))
	return err
}

// progressText is a run's PROGRESS in status's tables: its frames against
// the frame budget when it has one (a budget ends a run before its
// iterations do), else its iterations against the config's.
func progressText(done, iterations int, framesDone, frames int64) string {
	if frames > 0 {
		return fmt.Sprintf("%d/%d frames", framesDone, frames)
	}
	total := "?"
	if iterations > 0 {
		total = fmt.Sprint(iterations)
	}
	return fmt.Sprintf("%d/%s iterations", done, total)
}
