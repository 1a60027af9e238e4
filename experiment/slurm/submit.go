package slurm

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// Files of the backend inside the compare folder.
const (
	Dir        = "slurm"        // OUT/slurm
	ScriptFile = "array.sbatch" // OUT/slurm/array.sbatch: the latest submission's script
	LogDir     = "logs"         // OUT/slurm/logs/<job>_<task>.out: Slurm's output per task
)

// Request is one `compare --backend slurm`.
type Request struct {
	Out      string          // absolute compare folder
	Manifest matrix.Manifest // the matrix, with earlier submissions
	// TrainArgs returns the `hyperctl train` arguments of a run (after
	// "train", without --threads), given its absolute run folder.
	TrainArgs func(env, ctrl string, seed int64, dir string) []string
	Binary    string // absolute path of hyperctl
	Options   Options
	DryRun    bool // print the script, submit nothing, write nothing
}

// Result says what Submit did.
type Result struct {
	JobID  string        // empty when nothing was submitted
	Tasks  int           // array tasks submitted (or that would be, on a dry run)
	Status matrix.Status // the matrix before the submission
	Script string        // the batch script ("" when nothing to submit)
}

// Submit submits one job array with a task per run that is missing or
// failed (runs finished, queued or running are left alone), records the job
// in the manifest (OUT/compare.json) and returns. On a dry run it prints the
// script to w and changes nothing.
func Submit(ctx context.Context, r Runner, req Request, w io.Writer) (Result, error) {
	var res Result
	if !req.DryRun {
		if err := r.LookPath("sbatch"); err != nil {
			return res, &words.AdviceError{Msg: "compare on Slurm: ", Err: ErrNoSlurm, After: ": sbatch is not on PATH. Run compare on a machine that submits to your cluster (a login node), " +
				"or start a one-node Slurm here with scripts/slurm-local.sh start; {dry-run} prints the script without sbatch"}
		}
	}
	st, err := Collect(ctx, req.Out, req.Manifest, r)
	if err != nil {
		return res, err
	}
	res.Status = st
	if st.QueueErr != nil {
		return res, fmt.Errorf("compare on Slurm: the manifest lists Slurm jobs %s but the queue cannot be read, so submitting could start a second task on a queued run: %w",
			req.Manifest.JobIDs(), st.QueueErr)
	}
	var todo []matrix.RunStatus
	for _, rs := range st.Runs {
		if rs.State.NeedsSubmit() {
			todo = append(todo, rs)
		}
	}
	res.Tasks = len(todo)
	if len(todo) == 0 {
		return res, nil
	}
	s := Script{
		Binary:  req.Binary,
		LogDir:  filepath.Join(req.Out, Dir, LogDir),
		WorkDir: req.Out,
		Options: req.Options,
	}
	var runs []string
	for _, rs := range todo {
		dir := filepath.Join(req.Out, rs.Dir)
		s.Tasks = append(s.Tasks, Task{Dir: dir, Args: req.TrainArgs(rs.Env, rs.Controller, rs.Seed, dir)})
		runs = append(runs, filepath.ToSlash(rs.Dir))
	}
	text, err := Render(s)
	if err != nil {
		return res, err
	}
	res.Script = text
	if req.DryRun {
		_, err := io.WriteString(w, text)
		return res, err
	}
	if err := os.MkdirAll(s.LogDir, 0o755); err != nil {
		return res, fmt.Errorf("compare on Slurm: %w", err)
	}
	path := filepath.Join(req.Out, Dir, ScriptFile)
	if err := safefile.WriteAtomic(path, []byte(text)); err != nil {
		return res, err
	}
	out, err := r.Run(ctx, "sbatch", "--parsable", path)
	if err != nil {
		return res, fmt.Errorf("compare on Slurm: submitting %s: %w", path, err)
	}
	id, err := ParseJobID(string(out))
	if err != nil {
		return res, fmt.Errorf("compare on Slurm: %w", err)
	}
	res.JobID = id
	// The manifest maps the job's array tasks to runs; without it status
	// cannot see the job, so a failure here names the job to cancel.
	if _, err := matrix.AppendSlurmJob(req.Out, req.Manifest, id, runs); err != nil {
		return res, fmt.Errorf("compare on Slurm: job %s was submitted but could not be recorded in %s (cancel it with scancel %s): %w",
			id, filepath.Join(req.Out, matrix.ManifestFile), id, err)
	}
	// A copy per job: Slurm keeps its own, this one stays with the results.
	if err := safefile.WriteAtomic(filepath.Join(req.Out, Dir, "job-"+id+".sbatch"), []byte(text)); err != nil {
		return res, err
	}
	return res, nil
}
