package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hyperctl/hyperctl/configs/rundir"
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
	Detail     string `json:"detail,omitempty"`
}

// folderStatus is the state of every run folder in root (rundir.Runs):
// finished, running (a process holds its lock) or stopped.
func folderStatus(root string) ([]folderRun, error) {
	found, err := rundir.Runs(root)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	out := make([]folderRun, 0, len(found))
	for _, f := range found {
		r := folderRun{Dir: f.Dir}
		id, err := rundir.ReadIdentity(f.Dir)
		if err != nil {
			r.Env, r.Controller, r.Detail = "?", "?", err.Error()
		} else {
			r.Env, r.Controller, r.Seed, r.Iterations = id.Env, id.Controller, id.Seed, id.Iterations
		}
		if it, _, ok := rundir.LastRow(f.Dir); ok {
			r.Done = it + 1
		}
		switch pid, held, herr := rundir.Holder(f.Dir); {
		case f.Finished:
			r.State = runFinished
			if s, err := rundir.ReadSummary(f.Dir); err == nil {
				r.Done = s.Iterations
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
	fmt.Fprintln(tw, "RUN\tENV\tCONTROLLER\tSEED\tSTATE\tITERATIONS\tDETAIL")
	for _, r := range runs {
		rel, err := filepath.Rel(root, r.Dir)
		if err != nil {
			rel = r.Dir
		}
		total := "?"
		if r.Iterations > 0 {
			total = fmt.Sprint(r.Iterations)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%d/%s\t%s\n", rel, r.Env, r.Controller, r.Seed, r.State, r.Done, total, r.Detail)
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
