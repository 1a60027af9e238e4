package mujoco

import (
	"math"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// benchActions is a fixed table of uniform random actions within the
// action bounds: 1000 rows (one episode of HalfCheetah), seeded.
func benchActions(spec envs.Spec) []float64 {
	g := rng.New(12345)
	n := spec.Action.Dim()
	a := make([]float64, 1000*n)
	for i := range a {
		a[i] = g.Uniform(spec.Action.Low[i%n], spec.Action.High[i%n])
	}
	return a
}

// threadCPU is the CPU time used so far by the calling OS thread
// (getrusage RUSAGE_THREAD). Call it with the goroutine locked to its
// thread. Unlike wall time it does not count time spent descheduled, so it
// is steadier on a shared machine.
func threadCPU(b *testing.B) time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD on Linux
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is the CPU time used so far by the whole process (all threads).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// envLoop runs steps environment steps on e (a raw env, no TimeLimit),
// resetting after episode steps or on termination, with actions cycling
// through the table.
func envLoop(b *testing.B, e envs.Env, actions []float64, steps, episode int, t *int) {
	n := e.Spec().Action.Dim()
	rows := len(actions) / n
	for k := 0; k < steps; k++ {
		if *t%episode == 0 {
			if _, err := e.Reset(envs.NoSeed); err != nil {
				b.Fatal(err)
			}
		}
		row := *t % rows
		tr, err := e.Step(actions[row*n : (row+1)*n])
		if err != nil {
			b.Fatal(err)
		}
		*t++
		if tr.Terminated {
			*t = 0
		}
	}
}

// BenchmarkEnvStep measures environment steps per second on one goroutine,
// for each environment, with random actions and a reset at the time limit
// (or termination). The reported env-steps/s include the resets;
// env-steps/cpu-s divides by the thread's CPU time instead of wall time.
func BenchmarkEnvStep(b *testing.B) {
	for _, c := range constructors {
		b.Run(c.name, func(b *testing.B) {
			e, err := c.make()
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			spec := e.Spec()
			actions := benchActions(spec)
			if _, err := e.Reset(0); err != nil {
				b.Fatal(err)
			}
			t := 0
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := threadCPU(b)
			envLoop(b, e, actions, b.N, spec.MaxEpisodeSteps, &t)
			cpu := threadCPU(b) - cpu0
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "env-steps/s")
			b.ReportMetric(float64(b.N)/cpu.Seconds(), "env-steps/cpu-s")
		})
	}
}

// BenchmarkHalfCheetahVsPhysics measures, in the same run and interleaved
// episode by episode (the machine is shared, so load changes affect both
// sides alike), three ways of spending the same number of HalfCheetah env
// steps:
//
//   - env: the Go environment (Step through cgo, reward, observation, and a
//     Reset with random draws every 1000 steps);
//   - bare: the same work as a C loop with no Go in between (copy the same
//     action into ctrl, 5 mj_step; every 1000 steps mj_resetData, the same
//     initial state as the env's reset drew, mj_forward), so it follows the
//     env's trajectory exactly (TestBenchEnvLoopMatchesEnv);
//   - raw: a C loop of plain mj_step calls with zero ctrl and no reset (the
//     physics limit as usually quoted), divided by frame_skip 5.
//
// It reports each rate in env steps/s of wall time and the ratios env/bare
// and env/raw, and the same ratios on thread CPU time (-cpu suffix), which
// are steadier when other processes compete for the cores.
func BenchmarkHalfCheetahVsPhysics(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	e, err := NewHalfCheetah()
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	actions := benchActions(e.Spec())
	if _, err := e.Reset(0); err != nil {
		b.Fatal(err)
	}
	// twin replays the env's reset draws, to give the bare loop the same
	// initial states: env and bare then follow identical trajectories.
	twin := resetHalfCheetah(b, 0)
	init := make([]float64, 18)
	bare, err := NewData(e.Model())
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	raw, err := NewData(e.Model())
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	if err := raw.Forward(); err != nil {
		b.Fatal(err)
	}

	const chunk = 1000                  // one episode
	var tEnv, tBare, tRaw time.Duration // wall time
	var cEnv, cBare, cRaw time.Duration // thread CPU time
	t := 0
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		n := min(chunk, b.N-done)
		if _, err := twin.Reset(envs.NoSeed); err != nil {
			b.Fatal(err)
		}
		copy(init, twin.Data().Qpos())
		copy(init[9:], twin.Data().Qvel())
		start, cpu := time.Now(), threadCPU(b)
		envLoop(b, e, actions, n, 1000, &t)
		tEnv += time.Since(start)
		cEnv += threadCPU(b) - cpu

		start, cpu = time.Now(), threadCPU(b)
		if err := bare.BenchEnvLoop(n, 5, 1000, actions, init); err != nil {
			b.Fatal(err)
		}
		tBare += time.Since(start)
		cBare += threadCPU(b) - cpu

		start, cpu = time.Now(), threadCPU(b)
		if err := raw.StepRaw(5 * n); err != nil {
			b.Fatal(err)
		}
		tRaw += time.Since(start)
		cRaw += threadCPU(b) - cpu
	}
	b.StopTimer()
	rate := func(d time.Duration) float64 { return float64(b.N) / d.Seconds() }
	b.ReportMetric(rate(tEnv), "env-steps/s")
	b.ReportMetric(rate(tBare), "bare-steps/s")
	b.ReportMetric(rate(tRaw), "raw-steps/s")
	b.ReportMetric(5*rate(tRaw), "raw-mj_step/s")
	b.ReportMetric(rate(tEnv)/rate(tBare), "env/bare")
	b.ReportMetric(rate(tEnv)/rate(tRaw), "env/raw")
	b.ReportMetric(rate(cEnv)/rate(cBare), "env/bare-cpu")
	b.ReportMetric(rate(cEnv)/rate(cRaw), "env/raw-cpu")
	b.ReportMetric(rate(cBare), "bare-steps/cpu-s")
}

// BenchmarkVec measures env steps per second of an envs.Vec of n copies
// stepped in parallel by GOMAXPROCS workers (both cores with -cpu 2), with
// autoreset. Interleaved with it, in the same run, a single environment is
// stepped on the calling goroutine for the same number of env steps, so the
// reported speedup (vec/single) compares the two under the same machine
// load. vec-cores-used is the process CPU time over wall time while the Vec
// stepped: below the worker count when other processes took the cores.
func BenchmarkVec(b *testing.B) {
	for _, c := range constructors {
		for _, n := range []int{2, 8} {
			b.Run(c.name+"/n="+strconv.Itoa(n), func(b *testing.B) {
				v, err := envs.NewVec(c.name, n, 0)
				if err != nil {
					b.Fatal(err)
				}
				defer v.Close()
				single, err := c.make()
				if err != nil {
					b.Fatal(err)
				}
				defer single.Close()
				spec := v.Spec()
				table := benchActions(spec)
				dim := spec.Action.Dim()
				rows := len(table) / dim
				actions := make([]float64, n*dim)
				if _, err := v.Reset(); err != nil {
					b.Fatal(err)
				}
				if _, err := single.Reset(0); err != nil {
					b.Fatal(err)
				}
				const chunk = 100 // Vec steps per interleaved round
				var tVec, tSingle, cVec time.Duration
				t := 0
				b.ResetTimer()
				for done := 0; done < b.N; done += chunk {
					m := min(chunk, b.N-done)
					start, cpu := time.Now(), processCPU(b)
					for k := done; k < done+m; k++ {
						for i := 0; i < n; i++ {
							row := (k + 37*i) % rows
							copy(actions[i*dim:(i+1)*dim], table[row*dim:(row+1)*dim])
						}
						if _, err := v.Step(actions); err != nil {
							b.Fatal(err)
						}
					}
					tVec += time.Since(start)
					cVec += processCPU(b) - cpu
					start = time.Now()
					envLoop(b, single, table, m*n, spec.MaxEpisodeSteps, &t)
					tSingle += time.Since(start)
				}
				b.StopTimer()
				vecRate := float64(b.N*n) / tVec.Seconds()
				singleRate := float64(b.N*n) / tSingle.Seconds()
				b.ReportMetric(vecRate, "vec-env-steps/s")
				b.ReportMetric(singleRate, "single-env-steps/s")
				b.ReportMetric(vecRate/singleRate, "speedup")
				b.ReportMetric(float64(v.Workers()), "workers")
				b.ReportMetric(cVec.Seconds()/tVec.Seconds(), "vec-cores-used")
			})
		}
	}
}

// BenchmarkVecVsBare compares, in the same run and interleaved round by
// round (so load changes on the shared machine hit every arm alike), the
// ways of spending HalfCheetah env steps on this machine's cores:
//
//   - bare: the bare C loop (Data.BenchEnvLoop: ctrl copy, 5 mj_step, and
//     mj_resetData + mj_forward every 1000 steps) on one thread;
//   - bare2: two bare C loops at once on two goroutines (the 2-core ceiling);
//   - single: one Go environment stepped on the calling goroutine;
//   - vec2, vec8: an envs.Vec of 2 and 8 copies with the default workers
//     (GOMAXPROCS), Steps back to back;
//   - vec8gap: the Vec of 8 copies with about 40 µs of busy work on the
//     calling goroutine between Steps (the policy inference of a PPO
//     rollout), only the Steps timed: workers that go to sleep between Steps
//     pay the thread wake-up here.
//
// One op is one round of 2000 env steps per arm. The bare loops run
// 1000-step episodes from initial states drawn by HalfCheetah resets (a
// twin env's), so they do the same kind of work as the env copies. Rates are env steps per wall
// second; ratios: single/bare (the Go env per core), vec2/single (must not
// lose at 2 copies), vec8/bare2 and vec8/2bare (against both cores' bare
// loops), and vec8/bare-cpu (vec8 env steps per process CPU-second over bare
// env steps per thread CPU-second: the per-core efficiency, steadier on a
// loaded machine). Run with -cpu 2 for the 2-core figures.
func BenchmarkVecVsBare(b *testing.B) {
	const round, episode = 2000, 1000
	vecs := map[int]*envs.Vec{2: resetVec(b, 2, 0), 8: resetVec(b, 8, 0)}
	vecGap := resetVec(b, 8, 100)
	spec := vecGap.Spec()
	single, twin := resetHalfCheetah(b, 0), resetHalfCheetah(b, 0)
	var bare [2]*Data
	for k := range bare {
		d, err := NewData(single.Model())
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		bare[k] = d
	}
	const inits = 64
	nq, nx := twin.Model().Nq(), twin.Model().Nq()+twin.Model().Nv()
	init := make([]float64, inits*nx)
	for k := 0; k < inits; k++ {
		if _, err := twin.Reset(int64(k)); err != nil {
			b.Fatal(err)
		}
		copy(init[k*nx:], twin.Data().Qpos())
		copy(init[k*nx+nq:(k+1)*nx], twin.Data().Qvel())
	}
	nextInit := 0
	table := benchActions(spec)
	dim := spec.Action.Dim()
	rows := len(table) / dim
	acts := map[int][]float64{2: make([]float64, 2*dim), 8: make([]float64, 8*dim)}
	fill := func(n, k int) []float64 {
		a := acts[n]
		for i := 0; i < n; i++ {
			row := (k + 37*i) % rows
			copy(a[i*dim:(i+1)*dim], table[row*dim:(row+1)*dim])
		}
		return a
	}
	bareLoop := func(d *Data, row int, cpu *time.Duration) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c0 := threadCPU(b)
		if err := d.BenchEnvLoop(episode, 5, episode, table, init[row*nx:(row+1)*nx]); err != nil {
			b.Error(err)
		}
		if cpu != nil {
			*cpu += threadCPU(b) - c0
		}
	}
	var sink float64
	busy := func(d time.Duration) { // stands in for policy inference
		for t0 := time.Now(); time.Since(t0) < d; {
			sink += math.Sqrt(sink + 1)
		}
	}
	stepVec := func(n, steps, k0 int, gap time.Duration, v *envs.Vec) (time.Duration, time.Duration) {
		var wall, cpu time.Duration
		for k := k0; k < k0+steps; k++ {
			a := fill(n, k)
			if gap > 0 {
				busy(gap)
			}
			start, c0 := time.Now(), processCPU(b)
			if _, err := v.Step(a); err != nil {
				b.Fatal(err)
			}
			wall += time.Since(start)
			cpu += processCPU(b) - c0
		}
		return wall, cpu
	}

	var tBare, cBare, tBare2, tSingle, tVec2, tVec8, cVec8, tGap time.Duration
	t := 0
	b.ResetTimer()
	for r := 0; r < b.N; r++ {
		start := time.Now()
		for k := 0; k < round/episode; k++ {
			bareLoop(bare[0], nextInit%inits, &cBare)
			nextInit++
		}
		tBare += time.Since(start)

		start = time.Now()
		for k := 0; k < round/episode/2; k++ {
			var wg sync.WaitGroup
			wg.Add(1)
			row := nextInit % inits
			go func() { defer wg.Done(); bareLoop(bare[1], (row+1)%inits, nil) }()
			bareLoop(bare[0], row, nil)
			nextInit += 2
			wg.Wait()
		}
		tBare2 += time.Since(start)

		start = time.Now()
		envLoop(b, single, table, round, episode, &t)
		tSingle += time.Since(start)

		start = time.Now()
		for k := 0; k < round/2; k++ {
			if _, err := vecs[2].Step(fill(2, r*round+k)); err != nil {
				b.Fatal(err)
			}
		}
		tVec2 += time.Since(start)

		start, c0 := time.Now(), processCPU(b)
		for k := 0; k < round/8; k++ {
			if _, err := vecs[8].Step(fill(8, r*round+k)); err != nil {
				b.Fatal(err)
			}
		}
		tVec8 += time.Since(start)
		cVec8 += processCPU(b) - c0

		w, _ := stepVec(8, round/8, r*round, 40*time.Microsecond, vecGap)
		tGap += w
	}
	b.StopTimer()
	if sink < 0 {
		b.Log(sink)
	}
	steps := float64(b.N * round)
	rate := func(d time.Duration) float64 { return steps / d.Seconds() }
	b.ReportMetric(rate(tBare), "bare-steps/s")
	b.ReportMetric(rate(tBare2), "bare2-steps/s")
	b.ReportMetric(rate(tSingle), "single-steps/s")
	b.ReportMetric(rate(tVec2), "vec2-steps/s")
	b.ReportMetric(rate(tVec8), "vec8-steps/s")
	b.ReportMetric(rate(tGap), "vec8gap-steps/s")
	b.ReportMetric(rate(cBare), "bare-steps/cpu-s")
	b.ReportMetric(rate(tSingle)/rate(tBare), "single/bare")
	b.ReportMetric(rate(tVec2)/rate(tSingle), "vec2/single")
	b.ReportMetric(rate(tVec8)/rate(tBare2), "vec8/bare2")
	b.ReportMetric(rate(tVec8)/(2*rate(tBare)), "vec8/2bare")
	b.ReportMetric(rate(tGap)/(2*rate(tBare)), "vec8gap/2bare")
	b.ReportMetric(rate(cVec8)/rate(cBare), "vec8/bare-cpu")
	b.ReportMetric(cVec8.Seconds()/tVec8.Seconds(), "vec8-cores-used")
}

// resetHalfCheetah makes a HalfCheetah reset with seed, closed when the
// benchmark ends.
func resetHalfCheetah(b *testing.B, seed int64) *HalfCheetah {
	e, err := NewHalfCheetah()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	if _, err := e.Reset(seed); err != nil {
		b.Fatal(err)
	}
	return e
}

// resetVec makes an envs.Vec of n HalfCheetah copies (default workers),
// reset with seed, closed when the benchmark ends.
func resetVec(b *testing.B, n int, seed int64) *envs.Vec {
	v, err := envs.NewVec("halfcheetah", n, seed)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	if _, err := v.Reset(); err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkEnvFloor is the environment floor of a 1M-frame HalfCheetah
// training run (issue 39, scripts/bench.sh): one op is the 1,001,472 env
// steps of `hyperctl train --frames 1000000` (489 iterations of 2048
// frames), stepped as the trainer steps them, on an envs.Vec of 8 copies
// with the default workers (GOMAXPROCS: 2 with -cpu 2), and no policy
// between Steps (fixed uniform actions). It reports the wall and process
// CPU seconds per op.
//
//	go test -run '^$' -bench EnvFloor -benchtime 1x -cpu 2 ./envs/mujoco
func BenchmarkEnvFloor(b *testing.B) {
	const n, frames = 8, 489 * 2048
	v := resetVec(b, n, 0)
	spec := v.Spec()
	table := benchActions(spec)
	dim := spec.Action.Dim()
	rows := len(table) / dim
	actions := make([]float64, n*dim)
	start, cpu := time.Now(), processCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := 0; k < frames/n; k++ {
			for e := 0; e < n; e++ {
				row := (k + 37*e) % rows
				copy(actions[e*dim:(e+1)*dim], table[row*dim:(row+1)*dim])
			}
			if _, err := v.Step(actions); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/1M-frames")
	b.ReportMetric((processCPU(b)-cpu).Seconds()/float64(b.N), "cpu-s/1M-frames")
	b.ReportMetric(float64(v.Workers()), "workers")
}

// BenchmarkEnvVsFloor measures, for every environment of the package (the
// constructors table), the environment's stepping against the bare physics
// floor on the same model, in the same run and interleaved in chunks of
// 1000 env steps (so load changes on the shared machine hit both sides):
//
//   - env: Step with a zero action (the action check and copy into ctrl,
//     frame_skip mj_step through cgo, observation, reward, termination),
//     never reset, from qpos0 with zero velocity;
//   - floor: Data.StepRaw, frame_skip × n plain mj_step calls in one C loop
//     from the same state, zero ctrl: the work of cfloor/envfloor.c.
//
// Both follow the same trajectory; the benchmark fails if the final states
// differ. It reports env-steps/s and floor-steps/s (wall and thread CPU)
// and env/floor, the env's time per step over the floor's (1 = no
// overhead), on wall and CPU time. scripts/env-floor.sh runs it beside the
// standalone C program.
//
//	go test -run '^$' -bench EnvVsFloor -benchtime 20000x ./envs/mujoco
func BenchmarkEnvVsFloor(b *testing.B) {
	for _, c := range constructors {
		b.Run(c.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			e, err := c.make()
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			if _, err := e.Reset(0); err != nil { // ready to step
				b.Fatal(err)
			}
			floor, err := NewData(e.Model())
			if err != nil {
				b.Fatal(err)
			}
			defer floor.Close()
			for _, d := range []*Data{e.Data(), floor} {
				if err := d.Reset(); err != nil {
					b.Fatal(err)
				}
				if err := d.Forward(); err != nil {
					b.Fatal(err)
				}
			}
			frameSkip := int(math.Round(e.Dt() / e.Model().Timestep()))
			action := make([]float64, e.Spec().Action.Dim())
			const chunk = 1000
			var tEnv, tFloor, cEnv, cFloor time.Duration
			b.ResetTimer()
			for done := 0; done < b.N; done += chunk {
				n := min(chunk, b.N-done)
				start, cpu := time.Now(), threadCPU(b)
				for k := 0; k < n; k++ {
					if _, err := e.Step(action); err != nil {
						b.Fatal(err)
					}
				}
				tEnv += time.Since(start)
				cEnv += threadCPU(b) - cpu
				start, cpu = time.Now(), threadCPU(b)
				if err := floor.StepRaw(frameSkip * n); err != nil {
					b.Fatal(err)
				}
				tFloor += time.Since(start)
				cFloor += threadCPU(b) - cpu
			}
			b.StopTimer()
			if u, _ := e.Instabilities(); u > 0 {
				b.Fatalf("%d unstable steps: the env was reset, the floor was not", u)
			}
			q, fq := e.Data().Qpos(), floor.Qpos()
			for i := range q {
				if q[i] != fq[i] {
					b.Fatalf("env and floor end at different states: qpos %v, floor %v", q, fq)
				}
			}
			rate := func(d time.Duration) float64 { return float64(b.N) / d.Seconds() }
			b.ReportMetric(rate(tEnv), "env-steps/s")
			b.ReportMetric(rate(tFloor), "floor-steps/s")
			b.ReportMetric(rate(cEnv), "env-steps/cpu-s")
			b.ReportMetric(rate(cFloor), "floor-steps/cpu-s")
			b.ReportMetric(tEnv.Seconds()/tFloor.Seconds(), "env/floor")
			b.ReportMetric(cEnv.Seconds()/cFloor.Seconds(), "env/floor-cpu")
		})
	}
}
