package ppo

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// childEnv marks a test binary re-executed by a test of this file; its value
// names the check the child runs.
const childEnv = "HYPERCTL_PPO_BLAS_CHILD"

// runChild re-executes this test binary running only test, with extra
// environment variables and childEnv set to check, and returns its output.
func runChild(t *testing.T, test, check string, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$", "-test.count", "1", "-test.v")
	cmd.Env = append(append(os.Environ(), env...), childEnv+"="+check)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestBLASOneThread: the process runs OpenBLAS with one thread whatever the
// environment asks (shim.cpp sets it at start), so a user's
// OPENBLAS_NUM_THREADS neither slows the small products nor changes results.
func TestBLASOneThread(t *testing.T) {
	if os.Getenv(childEnv) == "one-thread" {
		threads, cfg := blasInfo()
		if cfg != "" && threads != 1 {
			t.Fatalf("OpenBLAS (%s) runs %d threads with OPENBLAS_NUM_THREADS=%s, want 1", cfg, threads, os.Getenv("OPENBLAS_NUM_THREADS"))
		}
		t.Logf("BLAS %q, %d thread(s)", cfg, threads)
		return
	}
	if _, cfg := blasInfo(); cfg == "" {
		t.Skip("the loaded BLAS is not OpenBLAS (scripts/setup.sh installs libopenblas0-pthread)")
	}
	out, err := runChild(t, "TestBLASOneThread", "one-thread", "OPENBLAS_NUM_THREADS=2", "OMP_NUM_THREADS=2")
	if err != nil || !strings.Contains(out, "1 thread(s)") {
		t.Fatalf("child with OPENBLAS_NUM_THREADS=2: %v\n%s", err, out)
	}
}

// serialOpenBLAS is the directory of Debian's serial OpenBLAS flavour, whose
// concurrent sgemm calls are unsafe (results/ppo/README.md).
const serialOpenBLAS = "/usr/lib/x86_64-linux-gnu/openblas-serial"

// TestUpdateThreadsRefusedOnSerialBLAS: with the serial OpenBLAS loaded,
// update_threads = 2 is an error from New naming the key and the library,
// not a silent race; update_threads = 1 still trains.
func TestUpdateThreadsRefusedOnSerialBLAS(t *testing.T) {
	if os.Getenv(childEnv) == "serial" {
		if _, cfg := blasInfo(); !strings.Contains(cfg, "SINGLE_THREADED") {
			t.Fatalf("LD_LIBRARY_PATH=%s loaded %q, not the serial OpenBLAS", os.Getenv("LD_LIBRARY_PATH"), cfg)
		}
		cfg := toyConfig()
		cfg.UpdateThreads = 2
		_, err := New("ppotest-target", cfg, 1)
		if err == nil || !strings.Contains(err.Error(), "ppo.update_threads = 2") || !strings.Contains(err.Error(), "openblas-serial") {
			t.Fatalf("New with update_threads 2 on the serial OpenBLAS: error %v, want one naming ppo.update_threads and the library", err)
		}
		cfg.UpdateThreads = 1
		tr := newToyTrainer(t, "ppotest-target", cfg, 1)
		if _, err := tr.Iterate(context.Background(), cfg.Hyper); err != nil {
			t.Fatal(err)
		}
		t.Log("refused: " + err.Error())
		return
	}
	if _, err := os.Stat(filepath.Join(serialOpenBLAS, "libopenblas.so.0")); err != nil {
		t.Skipf("the serial OpenBLAS is not installed (%v): nothing unsafe to refuse", err)
	}
	out, err := runChild(t, "TestUpdateThreadsRefusedOnSerialBLAS", "serial", "LD_LIBRARY_PATH="+serialOpenBLAS)
	if err != nil || !strings.Contains(out, "refused: ") {
		t.Fatalf("child with the serial OpenBLAS: %v\n%s", err, out)
	}
}

// newHalvesTrainer builds a toy trainer with update_threads = 2, skipping
// when the loaded BLAS is refused (only without scripts/setup.sh).
func newHalvesTrainer(t *testing.T, env string, cfg ppoconfig.Config, seed int64) *Trainer {
	t.Helper()
	cfg.UpdateThreads = 2
	tr, err := New(env, cfg, seed)
	if err != nil && strings.Contains(err.Error(), "SINGLE_THREADED") {
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// TestUpdateThreadsDeterministic: training with update_threads = 2 gives the
// same bits run to run (the two row blocks' gradients are added in a fixed
// order), and differs from update_threads = 1 only by float32 summation
// order: after three iterations the parameters are close, not equal.
func TestUpdateThreadsDeterministic(t *testing.T) {
	cfg := toyConfig()
	cfg.BatchSize = 256
	ctx := context.Background()
	run := func(tr *Trainer) ([]float32, []IterStats) {
		t.Helper()
		var sts []IterStats
		for i := 0; i < 3; i++ {
			st, err := tr.Iterate(ctx, cfg.Hyper)
			if err != nil {
				t.Fatal(err)
			}
			sts = append(sts, st)
		}
		return paramsOf(t, tr), sts
	}
	a, sa := run(newHalvesTrainer(t, "ppotest-target", cfg, 3))
	b, sb := run(newHalvesTrainer(t, "ppotest-target", cfg, 3))
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("update_threads 2: parameter %d is %v then %v: not deterministic", i, a[i], b[i])
		}
	}
	for i := range sa {
		if sa[i].Reward != sb[i].Reward || sa[i].Update.PolicyLoss != sb[i].Update.PolicyLoss || sa[i].Update.GradNorm != sb[i].Update.GradNorm {
			t.Fatalf("update_threads 2: iteration %d statistics differ run to run", i)
		}
	}
	one, _ := run(newToyTrainer(t, "ppotest-target", cfg, 3))
	var maxDiff, maxAbs float64
	same := true
	for i := range one {
		same = same && math.Float32bits(one[i]) == math.Float32bits(a[i])
		maxDiff = math.Max(maxDiff, math.Abs(float64(one[i]-a[i])))
		maxAbs = math.Max(maxAbs, math.Abs(float64(one[i])))
	}
	if same {
		t.Fatal("update_threads 2 gave exactly the update_threads 1 parameters: the two halves were not in force")
	}
	if maxDiff > 1e-3*maxAbs {
		t.Fatalf("update_threads 1 and 2 differ by up to %.3g (max |θ| %.3g) after 3 iterations", maxDiff, maxAbs)
	}
	t.Logf("update_threads 1 vs 2 after 3 iterations: max |Δθ| %.3g (max |θ| %.3g)", maxDiff, maxAbs)
}
