package population

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// Options configure Run.
type Options struct {
	Out  string
	Jobs int // members trained at once (>= 1)
	Log  zerolog.Logger
	// Train trains member k through generation g (TrainMember's work);
	// nil: a pool of Jobs workers running Binary (Workers), each with
	// matrix.JobThreads(Jobs) threads. Tests may train in process.
	Train func(ctx context.Context, g, k int) error
	// Binary is the hyperctl executable of the workers (Train nil).
	Binary string
	// Hook (optional) is called after each phase; an error stops Run
	// there, as a kill at that moment would.
	Hook Hook
	// Generation (optional) is called when a generation starts training.
	Generation func(g, of int)
	// Term (optional) is a terminal to show a bar of the frames the
	// members have trained on, instead of a log line per generation.
	Term *os.File
}

// Run runs the population in o.Out, set up by Init, on the local machine
// until its last generation has trained, from wherever an earlier run
// stopped: it trains each generation's members, o.Jobs at a time, then
// runs the step after it. It holds the population's lock throughout.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Jobs < 1 {
		return Result{}, fmt.Errorf("population: jobs = %d, want >= 1", o.Jobs)
	}
	lock, err := Lock(o.Out)
	if err != nil {
		return Result{}, err
	}
	defer lock.Release()
	def, err := ReadDefinition(o.Out)
	if err != nil {
		return Result{}, err
	}
	if _, err := Verify(o.Out); err != nil {
		return Result{}, err // refused before any member trains
	}
	g, err := Current(o.Out)
	if err != nil {
		return Result{}, err
	}
	if g < 0 {
		return Result{}, fmt.Errorf("population: %s has no plan; it was not set up", o.Out)
	}
	if o.Train == nil {
		w, err := NewWorkers(o, o.Binary, matrix.JobThreads(o.Jobs))
		if err != nil {
			return Result{}, err
		}
		defer w.Close()
		o.Train = w.Train
	}
	dirs := make([]string, def.Size)
	for k := range dirs {
		dirs[k] = def.MemberDir(o.Out, k)
	}
	bar := matrix.NewFramesBar(o.Term, dirs, def.PlannedFrames())
	defer bar.Finish()
	for {
		if o.Generation != nil {
			o.Generation(g, def.Generations())
		}
		if o.Term != nil {
			bar.Prefix(fmt.Sprintf("%s %d of %d", GenerationWord(def.Settings.Method), g+1, def.Generations()))
		} else {
			o.Log.Info().Int("generation", g).Int("of", def.Generations()).Int64("target_frames", def.Target(g)).Msg("population: training a generation")
		}
		start := time.Now()
		busy, err := trainGeneration(ctx, o, def, g)
		if err != nil {
			return Result{}, err
		}
		wall := time.Since(start).Seconds()
		slots := min(o.Jobs, def.Size)
		o.Log.Debug().Int("generation", g).Float64("wall_s", round3(wall)).Float64("members_s", round3(busy)).
			Float64("idle_s", round3(float64(slots)*wall-busy)).Int("slots", slots).Msg("population: generation trained")
		if err := call(o.Hook, PhaseTrained, g); err != nil {
			return Result{}, err
		}
		if def.Last(g) {
			return Finish(o.Out, g, o.Hook)
		}
		start = time.Now()
		if err := StepAfter(o.Out, g, o.Hook); err != nil {
			return Result{}, err
		}
		o.Log.Debug().Int("generation", g).Float64("step_s", round3(time.Since(start).Seconds())).Msg("population: step taken")
		g++
	}
}

// trainGeneration trains every member through generation g, o.Jobs at a
// time, and returns the seconds the members' trainings took, summed (each
// from its request to its answer: a worker's resume, training and pause);
// the errors of all members are returned together.
func trainGeneration(ctx context.Context, o Options, def Definition, g int) (float64, error) {
	queue := make(chan int)
	var mu sync.Mutex
	var failed []string
	var busy float64
	var wg sync.WaitGroup
	for range min(o.Jobs, def.Size) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range queue {
				start := time.Now()
				err := o.Train(ctx, g, k)
				took := time.Since(start).Seconds()
				o.Log.Debug().Int("generation", g).Int("member", k).Float64("took_s", round3(took)).Msg("population: member trained")
				mu.Lock()
				busy += took
				if err != nil {
					failed = append(failed, fmt.Sprintf("member %d: %v", k, err))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for k := range def.Size {
		select {
		case queue <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if ctx.Err() != nil {
		return busy, fmt.Errorf("population interrupted in generation %d; run the same command again to continue", g)
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return busy, fmt.Errorf("population: generation %d: %d of %d members failed (their logs are train.log in each member's folder); run the same command again to continue:\n  %s",
			g, len(failed), def.Size, strings.Join(failed, "\n  "))
	}
	return busy, nil
}

// round3 rounds seconds to milliseconds, for the log.
func round3(s float64) float64 { return math.Round(s*1000) / 1000 }
