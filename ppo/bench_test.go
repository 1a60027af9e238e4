package ppo

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sugarme/gotch"

	"github.com/sugarme/gotch/ts"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// BenchmarkMinibatchUpdate measures one PPO minibatch step (forward of
// actor and critic, loss, backward, gradient clipping, Adam) at CleanRL's
// sizes: HalfCheetah's 17-dim observations and 6-dim actions, 64×64
// networks (and 3×256), 64-frame minibatches, one libtorch thread (and
// two, to show what a second intra-op thread costs at these sizes), and
// with each minibatch split into two halves computed concurrently
// (ppo.update_threads = 2; skipped with a serial OpenBLAS, see
// results/ppo/README.md).
//
//	go test -run '^$' -bench MinibatchUpdate ./ppo
func BenchmarkMinibatchUpdate(b *testing.B) {
	for _, tc := range []struct {
		name    string
		hidden  []int
		threads int
		halves  int
	}{{"64x64", []int{64, 64}, 1, 1}, {"3x256", []int{256, 256, 256}, 1, 1}, {"64x64-2threads", []int{64, 64}, 2, 1},
		{"64x64-halves", []int{64, 64}, 1, 2}, {"3x256-halves", []int{256, 256, 256}, 1, 2}} {
		hidden := tc.hidden
		b.Run(tc.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			setTorchThreads(tc.threads)
			defer setTorchThreads(1)
			rng := rand.New(rand.NewPCG(1, 2))
			l := newLayout(17, 6, hidden, "tanh")
			ln, err := newLearner(l, l.initParams(rng, initSettingsOf(ppoconfig.DefaultConfig())))
			if err != nil {
				b.Fatal(err)
			}
			defer ln.close()
			if err := ln.sh.setHalves(tc.halves); err != nil {
				b.Skipf("%s: %v", tc.name, err)
			}
			batch := smallBatch(rng, 64*32, 17, 6)
			p := updateParams{Hyper: ppoconfig.Hyper{Clip: 0.2, LR: 3e-4, ValueCoef: 0.5, MaxGradNorm: 0.5, Epochs: 1, MinibatchSize: 64, LRScale: 1}, adamEps: 1e-5, adamBeta1: 0.9, adamBeta2: 0.999, clipValueLoss: true, normAdvantage: true}
			b.ResetTimer()
			mbs, cpu0 := 0, threadCPU()
			for i := 0; i < b.N; i++ {
				st, err := ln.update(batch, p, rng)
				if err != nil {
					b.Fatal(err)
				}
				mbs += st.Minibatches
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(mbs)/1e3, "µs/minibatch")
			// The calling thread's CPU time (without the halves' worker):
			// what a loaded machine's other processes do not inflate.
			b.ReportMetric(float64((threadCPU()-cpu0).Nanoseconds())/float64(mbs)/1e3, "cpu-µs/minibatch")
		})
	}
}

// BenchmarkIterateHalfCheetah measures whole iterations (rollout of 2048
// frames on 8 HalfCheetah-v4 copies, GAE, 10 epochs of 32 minibatches) with
// the default configuration and reports frames per second and the share of
// each phase.
//
//	go test -run '^$' -bench IterateHalfCheetah -benchtime 20x ./ppo
func BenchmarkIterateHalfCheetah(b *testing.B) {
	cfg := ppoconfig.DefaultConfig()
	tr, err := New("HalfCheetah-v4", cfg, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	ctx := context.Background()
	var frames int
	var env, inf, upd float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := tr.Iterate(ctx, cfg.Hyper)
		if err != nil {
			b.Fatal(err)
		}
		frames += st.Frames
		env += st.EnvTime.Seconds()
		inf += st.InferenceTime.Seconds()
		upd += st.UpdateTime.Seconds()
	}
	el := b.Elapsed().Seconds()
	b.ReportMetric(float64(frames)/el, "frames/s")
	b.ReportMetric(100*env/el, "%env")
	b.ReportMetric(100*inf/el, "%inference")
	b.ReportMetric(100*upd/el, "%update")
}

// BenchmarkOpMemory compares resident-memory growth per op between gotch's
// ts package (tanh + MustDrop, whose generated wrappers C.malloc(0) an
// output slot per op and never free it) and this package's session layer
// (tanh + free with one reused slot). It reports RSS growth in bytes/op.
//
//	go test -run '^$' -bench OpMemory -benchtime 1000000x ./ppo
func BenchmarkOpMemory(b *testing.B) {
	x := ts.MustOnes([]int64{4}, gotch.Float, gotch.CPU)
	defer x.MustDrop()
	b.Run("gotch-ts", func(b *testing.B) {
		r0 := rssBytes()
		for i := 0; i < b.N; i++ {
			y := x.MustTanh(false)
			y.MustDrop()
		}
		b.ReportMetric(float64(rssBytes()-r0)/float64(b.N), "rss-bytes/op")
	})
	b.Run("session", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s := newSession()
		defer s.close()
		r0 := rssBytes()
		for i := 0; i < b.N; i++ {
			s.free(s.tanh(tensor(x.Ctensor())))
		}
		if s.err != nil {
			b.Fatal(s.err)
		}
		b.ReportMetric(float64(rssBytes()-r0)/float64(b.N), "rss-bytes/op")
	})
}

// rssBytes is the resident set size from /proc/self/statm (0 if unknown).
func rssBytes() int64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// BenchmarkTrials measures HOOF's cost (IterateTrials) against the floor
// of a plain iteration, both on HalfCheetah-v4 with the default
// configuration and measured alternately in the same run on two trainers
// of one seed, so the ratio holds whatever else the machine is doing. The
// candidates are lr × {0.5, 0.75, 1, 1.5, 2} (K = 5) with the trial
// epochs of each sub-benchmark (0: every candidate makes the whole update,
// as the HOOF paper). It reports the ratio of the mean trial iteration to
// the mean plain iteration in CPU time ("x_plain_cpu"; the goal for K = 5
// is at most 2) and in wall time.
//
//	go test -run '^$' -bench Trials -benchtime 30x ./ppo
func BenchmarkTrials(b *testing.B) {
	for _, tc := range []struct {
		name   string
		epochs int
	}{{"K5-trial1", 1}, {"K5-trial2", 2}, {"K5-whole", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := ppoconfig.DefaultConfig()
			cfg.Threads = 1
			plain, err := New("HalfCheetah-v4", cfg, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer plain.Close()
			trials, err := New("HalfCheetah-v4", cfg, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer trials.Close()
			cands := make([]ppoconfig.Hyper, 5)
			for k, m := range []float64{0.5, 0.75, 1, 1.5, 2} {
				cands[k] = cfg.Hyper
				cands[k].LR = cfg.LR * m
			}
			ctx := context.Background()
			var tPlain, tTrials, cPlain, cTrials time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s0, c0 := time.Now(), cpuTime()
				if _, err := plain.Iterate(ctx, cfg.Hyper); err != nil {
					b.Fatal(err)
				}
				s1, c1 := time.Now(), cpuTime()
				if _, err := trials.IterateTrials(ctx, cands, controller.TrialSpec{Epochs: tc.epochs}); err != nil {
					b.Fatal(err)
				}
				tPlain += s1.Sub(s0)
				tTrials += time.Since(s1)
				cPlain += c1 - c0
				cTrials += cpuTime() - c1
			}
			// CPU time (the process's, user + system: the two trainers run
			// one after the other) is the ratio that holds on a loaded
			// machine; wall time is given too.
			b.ReportMetric(cTrials.Seconds()/cPlain.Seconds(), "x_plain_cpu")
			b.ReportMetric(tTrials.Seconds()/tPlain.Seconds(), "x_plain_wall")
			b.ReportMetric(cPlain.Seconds()/float64(b.N)*1e3, "cpu_ms/plain")
			b.ReportMetric(cTrials.Seconds()/float64(b.N)*1e3, "cpu_ms/trials")
		})
	}
}

// threadCPU is the calling OS thread's CPU time so far, user and system
// (Linux's RUSAGE_THREAD; 0 if unknown).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // 1: RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
