package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/run"
	"github.com/hyperctl/hyperctl/experiment/tbevents/tbeventstest"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// readCSV returns a CSV's rows as maps from column to text.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, c := range recs[0] {
			m[c] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad number %q", s)
	}
	return v
}

// checkEvents decodes the run's events files with TensorBoard's own
// definitions (every CRC checked) and compares them with train.csv and
// eval.csv: one summary event per row at step = frames, no step twice, and
// the values equal to the CSV's (as float32, simple_value's type; the
// objective and mean episode return, which train.csv rounds to 6
// significant digits, within that rounding).
func checkEvents(t *testing.T, dir string) (records int) {
	t.Helper()
	files, err := rundir.EventsFiles(dir)
	if err != nil || len(files) == 0 {
		t.Fatalf("events files in %s: %v %v", dir, files, err)
	}
	train := readCSV(t, filepath.Join(dir, "train.csv"))
	evals := map[string]map[string]string{}
	for _, r := range readCSV(t, filepath.Join(dir, "eval.csv")) {
		evals[r["frames"]] = r
	}
	byStep := map[int64]tbeventstest.Event{}
	for _, f := range tbeventstest.Decode(t, files...) {
		records += f.Records
		for _, ev := range f.Events {
			if ev.Scalars == nil {
				continue
			}
			if _, dup := byStep[ev.Step]; dup {
				t.Fatalf("step %d recorded twice", ev.Step)
			}
			byStep[ev.Step] = ev
		}
	}
	if len(byStep) != len(train) {
		t.Fatalf("%d summary events for %d train.csv rows", len(byStep), len(train))
	}
	same := func(what string, got float64, ok bool, want string) {
		t.Helper()
		if !ok {
			t.Fatalf("%s: missing in the events", what)
		}
		if float32(got) != float32(num(t, want)) {
			t.Fatalf("%s: events %v, csv %s", what, got, want)
		}
	}
	near6 := func(what string, got float64, ok bool, want string) {
		t.Helper()
		if !ok {
			t.Fatalf("%s: missing in the events", what)
		}
		if w := num(t, want); math.Abs(got-w) > 5e-6*math.Abs(w) {
			t.Fatalf("%s: events %v, csv %s (6 significant digits)", what, got, want)
		}
	}
	for _, row := range train {
		step := int64(num(t, row["frames"]))
		ev, ok := byStep[step]
		if !ok {
			t.Fatalf("no event at step %d (iteration %s)", step, row["iteration"])
		}
		get := func(tag string) (float64, bool) { v, ok := ev.Scalars[tag]; return v, ok }
		v, ok := get(run.TagReward)
		same("train_reward at iteration "+row["iteration"], v, ok, row["train_reward"])
		if row["objective"] != "" {
			v, ok := get(run.TagObjective)
			near6("objective", v, ok, row["objective"])
		} else if _, ok := get(run.TagObjective); ok {
			t.Fatalf("iteration %s: an objective where train.csv has none", row["iteration"])
		}
		if row["mean_episode_return"] != "" {
			v, ok := get(run.TagEpisodeReturn)
			near6("mean_episode_return", v, ok, row["mean_episode_return"])
		}
		for _, h := range ppoconfig.HyperNames() {
			v, ok := get(run.TagHyperPrefix + h)
			if _, logged := row[h]; !logged {
				if ok {
					t.Fatalf("iteration %s: hyper/%s in the events but not in train.csv", row["iteration"], h)
				}
				continue
			}
			same(h, v, ok, row[h])
		}
		v, ok = get(run.TagRejected)
		same("rejected_updates", v, ok, row["rejected_updates"])
		for _, tag := range []string{run.TagPolicyLoss, run.TagValueLoss, run.TagEntropy, run.TagApproxKL, run.TagClipFrac, run.TagFPS} {
			if v, ok := get(tag); !ok || math.IsNaN(v) {
				t.Fatalf("iteration %s: %s = %v, %v", row["iteration"], tag, v, ok)
			}
		}
		if e, isEval := evals[row["frames"]]; isEval {
			v, ok := get(run.TagEvalReturn)
			same("eval_return", v, ok, e["eval_return"])
		} else if _, ok := get(run.TagEvalReturn); ok {
			t.Fatalf("iteration %s: an eval/return without an eval.csv row", row["iteration"])
		}
	}
	return records
}

// checkPolicies: policy-best holds the highest eval.csv return and
// policy-final the last iteration.
func checkPolicies(t *testing.T, run string, iterations int) {
	t.Helper()
	best := math.Inf(-1)
	bestIt := 0
	var last float64
	for _, r := range readCSV(t, filepath.Join(run, "eval.csv")) {
		v := num(t, r["eval_return"])
		if v > best {
			best, bestIt = v, int(num(t, r["iteration"])) // one numbering: eval.csv's
		}
		last = v
	}
	b, err := policy.Load(run, policy.Best)
	if err != nil {
		t.Fatal(err)
	}
	if b.Meta.EvalReturn == nil || *b.Meta.EvalReturn != best || b.Meta.Iteration != bestIt {
		t.Fatalf("policy-best: iteration %d return %v, want %d and %v (eval.csv's best)", b.Meta.Iteration, b.Meta.EvalReturn, bestIt, best)
	}
	f, err := policy.Load(run, policy.Final)
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta.Iteration != iterations-1 || f.Meta.EvalReturn == nil || *f.Meta.EvalReturn != last {
		t.Fatalf("policy-final: iteration %d return %v, want %d and %v", f.Meta.Iteration, f.Meta.EvalReturn, iterations-1, last)
	}
	if b.Meta.Env != "Reacher-v4" || b.Meta.Controller != "hypercontroller" || b.Meta.HyperctlVersion == "" {
		t.Fatalf("policy-best sidecar: %+v", b.Meta)
	}
}

// TestRunArtifacts: a finished run keeps both policies and an events file
// that TensorBoard's own definitions decode into train.csv's values.
func TestRunArtifacts(t *testing.T) {
	dir := t.TempDir()
	cfg := writeTiny(t, dir)
	out := filepath.Join(dir, "run")
	if o, e, code := runCLI(t, "train", "--config", cfg, "--out", out); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, o, e)
	}
	if _, err := os.Stat(filepath.Join(out, "checkpoint")); !os.IsNotExist(err) {
		t.Fatalf("the checkpoint was kept: %v", err)
	}
	checkPolicies(t, out, 6)
	n := checkEvents(t, out)
	t.Logf("TensorBoard's event.proto decoded %d records of %s, every CRC verified, values equal to train.csv and eval.csv", n, out)
	if o, e, code := runCLI(t, "eval", out, "--episodes", "2"); code != 0 {
		t.Fatalf("eval: exit %d\n%s\n%s", code, o, e)
	}
	// --force clears the artifacts with the rest.
	if _, _, code := runCLI(t, "train", "--config", cfg, "--out", out, "--force", "--iterations", "1"); code != 0 {
		t.Fatalf("--force: exit %d", code)
	}
	if fs, _ := rundir.EventsFiles(out); len(fs) != 1 {
		t.Fatalf("events files after --force: %v", fs)
	}
	if p, err := policy.Load(out, policy.Best); err != nil || p.Meta.Iteration != 0 {
		t.Fatalf("policy-best after --force: %v", err)
	}
}
