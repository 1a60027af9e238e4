package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/population"
)

// printFolderStatus prints matrix.Folders's runs as a table or JSON, with
// pop (a population folder's status; nil for none) in the JSON.
func printFolderStatus(w io.Writer, root string, runs []matrix.FolderRun, pop *population.Status, asJSON bool) error {
	counts := map[string]int{}
	for _, r := range runs {
		counts[r.State]++
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Runs       []matrix.FolderRun `json:"runs"`
			Counts     map[string]int     `json:"counts"`
			Population *population.Status `json:"population,omitempty"`
		}{runs, counts, pop})
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tENV\tCONTROLLER\tSEED\tSTATE\tPROGRESS\tDETAIL")
	for _, r := range runs {
		rel, err := filepath.Rel(root, r.Dir)
		if err != nil || rel == "." { // "." is root itself, a run folder: name it as given
			rel = r.Dir
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", rel, r.Env, r.Controller, r.Seed, r.State, progressText(r.Done, r.Iterations, r.FramesDone, r.Frames), r.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var parts []string
	for _, s := range []string{matrix.FolderFinished, matrix.FolderRunning, matrix.FolderStopped} {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	_, err := fmt.Fprintf(w, "status: %s: %s\n", matrix.Plural(len(runs), "run", "runs"), strings.Join(parts, ", "))
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
