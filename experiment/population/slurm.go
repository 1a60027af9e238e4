package population

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/slurm"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// On Slurm a population is a chain with no daemon: generation g is a job
// array, one task per member (`hyperctl population member`, continued from
// its checkpoint, requeued at a time limit like a compare's task), and a
// job that depends on it (afterany) runs the step after it
// (`hyperctl population step`), which submits generation g+1's array and
// step in turn; the last one writes the result. Every job of a population
// carries one name (JobName), so a second submission finds the chain in
// the queue.

// Backend is what the chain needs to submit a generation, recorded in the
// definition (population.json, field backend).
type Backend struct {
	Binary  string        `json:"binary"` // absolute path of hyperctl on the nodes
	Options slurm.Options `json:"options"`
}

// BackendOf decodes a definition's backend.
func BackendOf(def Definition) (Backend, error) {
	var b Backend
	if len(def.Backend) == 0 {
		return b, fmt.Errorf("population: the definition has no Slurm backend; it was started with the local one")
	}
	if err := json.Unmarshal(def.Backend, &b); err != nil {
		return b, fmt.Errorf("population: backend: %w", err)
	}
	return b, nil
}

// JobName is the Slurm job name of every job of the population in the
// absolute folder out.
func JobName(out string) string {
	h := fnv.New32a()
	h.Write([]byte(out))
	return fmt.Sprintf("hyperctl-pop-%08x", h.Sum32())
}

// Queued lists the population's jobs in Slurm's queue (pending or
// running).
func Queued(ctx context.Context, r slurm.Runner, out string) ([]string, error) {
	b, err := r.Run(ctx, "squeue", "--noheader", "--name", JobName(out), "--format", "%i")
	if err != nil {
		return nil, fmt.Errorf("population: squeue: %w", err)
	}
	return strings.Fields(string(b)), nil
}

// Submitted is one generation's submission.
type Submitted struct {
	Generation int
	Array      string // the members' job array
	Step       string // the step job after it
}

// SubmitGeneration submits generation g of the population in out (an
// absolute path) to Slurm: the array of the members that train in it
// (all but those successive halving stopped) and the step job that
// depends on it. The array is recorded in compare.json (so `hyperctl
// status` maps its tasks to the member folders) before the step is
// submitted.
func SubmitGeneration(ctx context.Context, r slurm.Runner, out string, g int) (Submitted, error) {
	sub := Submitted{Generation: g}
	def, err := ReadDefinition(out)
	if err != nil {
		return sub, err
	}
	be, err := BackendOf(def)
	if err != nil {
		return sub, err
	}
	opts := be.Options
	opts.JobName = JobName(out)
	dir := filepath.Join(out, slurm.Dir)
	logs := filepath.Join(dir, slurm.LogDir)
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return sub, fmt.Errorf("population: %w", err)
	}
	s := slurm.Script{Binary: be.Binary, LogDir: logs, WorkDir: out, Options: opts, Command: []string{"population", "member"}}
	alive, err := Alive(out, def, g)
	if err != nil {
		return sub, err
	}
	var runs []string
	for k := range def.Size {
		if !alive[k] {
			continue // stopped by successive halving: no task
		}
		md := def.MemberDir(out, k)
		s.Tasks = append(s.Tasks, slurm.Task{Dir: md, Args: []string{"--out", out, "--generation", strconv.Itoa(g), "--member", strconv.Itoa(k)}})
		rel, _ := filepath.Rel(out, md)
		runs = append(runs, filepath.ToSlash(rel))
	}
	text, err := slurm.Render(s)
	if err != nil {
		return sub, err
	}
	if sub.Array, err = sbatch(ctx, r, filepath.Join(dir, fmt.Sprintf("generation-%04d.sbatch", g)), text); err != nil {
		return sub, err
	}
	if err := recordArray(out, sub.Array, runs); err != nil {
		return sub, fmt.Errorf("population: job %s was submitted but could not be recorded (cancel it with scancel %s): %w", sub.Array, sub.Array, err)
	}
	job, err := slurm.RenderJob(slurm.Job{Binary: be.Binary, LogDir: logs, WorkDir: out, Name: fmt.Sprintf("step-%04d", g), Options: opts,
		Args: []string{"population", "step", "--out", out, "--generation", strconv.Itoa(g)}})
	if err != nil {
		return sub, err
	}
	if sub.Step, err = sbatch(ctx, r, filepath.Join(dir, fmt.Sprintf("step-%04d.sbatch", g)), job, "--dependency=afterany:"+sub.Array); err != nil {
		return sub, fmt.Errorf("%w (the members' array %s is queued; cancel it with scancel %s, or run the same command again once it ends)", err, sub.Array, sub.Array)
	}
	return sub, nil
}

// Submit starts the Slurm chain of the population in out (an absolute
// path): the current generation's members and step (SubmitGeneration),
// unless jobs of the population are in the queue already, which it
// returns instead, submitting nothing.
func Submit(ctx context.Context, r slurm.Runner, out string) (sub Submitted, queued []string, err error) {
	if err := r.LookPath("sbatch"); err != nil {
		return sub, nil, fmt.Errorf("population on Slurm: %w: sbatch is not on PATH; run on a machine that submits to your cluster, or start a one-node Slurm with scripts/slurm-local.sh start", slurm.ErrNoSlurm)
	}
	if q, err := Queued(ctx, r, out); err != nil || len(q) > 0 {
		return sub, q, err
	}
	g, err := Current(out)
	if err != nil {
		return sub, nil, err
	}
	sub, err = SubmitGeneration(ctx, r, out, g)
	return sub, nil, err
}

// Chained is what ChainStep did.
type Chained struct {
	Stepped bool       // the exploit/explore step after the generation is done
	Result  *Result    // the population finished: its result (the step after the last generation)
	Next    *Submitted // the next generation submitted
	Queued  []string   // jobs of the population were queued already: nothing submitted
}

// ChainStep is the Slurm job after generation g of the population in out,
// under the population's lock: after the last generation it writes the
// result (Finish); else it runs the exploit/explore step (StepAfter) and,
// for a population on Slurm, submits generation g+1 unless other jobs of
// the population (not self, the job running the step) are queued already.
func ChainStep(ctx context.Context, r slurm.Runner, out string, g int, self string) (Chained, error) {
	var c Chained
	lock, err := Lock(out)
	if err != nil {
		return c, err
	}
	defer lock.Release()
	def, err := ReadDefinition(out)
	if err != nil {
		return c, err
	}
	if def.Last(g) {
		res, err := Finish(out, g, nil)
		if err != nil {
			return c, err
		}
		c.Result = &res
		return c, nil
	}
	if err := StepAfter(out, g, nil); err != nil {
		return c, err
	}
	c.Stepped = true
	if len(def.Backend) == 0 {
		return c, nil
	}
	q, err := Queued(ctx, r, out)
	if err != nil {
		return c, err
	}
	if c.Queued = slices.DeleteFunc(q, func(id string) bool { return id == self }); len(c.Queued) > 0 {
		return c, nil
	}
	sub, err := SubmitGeneration(ctx, r, out, g+1)
	if err != nil {
		return c, err
	}
	c.Next = &sub
	return c, nil
}

// sbatch writes a script and submits it, returning the job id.
func sbatch(ctx context.Context, r slurm.Runner, path, text string, extra ...string) (string, error) {
	if err := safefile.WriteAtomic(path, []byte(text)); err != nil {
		return "", err
	}
	args := append([]string{"--parsable"}, extra...)
	b, err := r.Run(ctx, "sbatch", append(args, path)...)
	if err != nil {
		return "", fmt.Errorf("population: submitting %s: %w", path, err)
	}
	return slurm.ParseJobID(string(b))
}

// recordArray adds a members' array to compare.json's Slurm jobs.
func recordArray(out, id string, runs []string) error {
	man, err := matrix.ReadManifest(out)
	if err != nil {
		return err
	}
	_, err = matrix.AppendSlurmJob(out, man, id, runs)
	return err
}
