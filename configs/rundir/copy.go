package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// MaxCopyBytes caps the size of one file CopyRun copies (a checkpoint is
// capped at MaxCheckpointBytes; the CSVs and events files are far smaller).
const MaxCopyBytes = MaxCheckpointBytes

// runFiles lists the files of a run that CopyRun copies, relative to the
// run folder, in the order they are copied: everything a training process
// reads to continue the run or a reader reads about it, but not the
// folder's lock, its log or a Slurm task's record, which belong to the
// folder and not to the run. The checkpoint folder comes first and the
// config last.
func runFiles(dir string) ([]string, error) {
	var out []string
	ck := filepath.Join(dir, CheckpointDir)
	err := filepath.WalkDir(ck, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == ck {
				return fs.SkipDir
			}
			return err
		}
		if d.Type().IsRegular() && filepath.Base(p)[0] != '.' {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	events, err := EventsFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		out = append(out, filepath.Base(e))
	}
	for _, p := range []string{policy.Best, policy.Final} {
		w, m := policy.Paths("", p)
		out = append(out, w, m)
	}
	out = append(out, EvalCSV, EpisodesCSV, TrainCSV, SummaryFile, ConfigFile)
	return out, nil
}

// CopyRun makes the run folder dst a copy of the run in src: it clears
// dst's run (Clear) and copies src's checkpoints (with the files kept
// beside them), TensorBoard events, policies, train.csv, eval.csv, summary
// and config.toml (and episodes.csv when it has one), each written atomically (temporary file, fsync,
// rename). A run continued from dst continues exactly as one continued from
// src. dst keeps its own lock, log and Slurm task record. Both folders must
// be locked by the caller (Acquire), so no one writes them meanwhile. A
// copy cut short by a crash leaves dst partly copied; doing it again
// completes it.
func CopyRun(src, dst string) error {
	if st, err := Inspect(src); err != nil {
		return fmt.Errorf("copy run: %w", err)
	} else if st == Empty {
		return fmt.Errorf("copy run: %s holds no run", src)
	}
	files, err := runFiles(src)
	if err != nil {
		return fmt.Errorf("copy run %s: %w", src, err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("copy run: %w", err)
	}
	if err := Clear(dst); err != nil {
		return fmt.Errorf("copy run to %s: %w", dst, err)
	}
	for _, rel := range files {
		b, err := safefile.ReadRegular(filepath.Join(src, rel), MaxCopyBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("copy run %s: %w", src, err)
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return fmt.Errorf("copy run: %w", err)
		}
		if err := safefile.WriteAtomic(target, b); err != nil {
			return fmt.Errorf("copy run to %s: %w", dst, err)
		}
	}
	return nil
}
