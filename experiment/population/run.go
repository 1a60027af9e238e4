package population

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

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
		if err := trainGeneration(ctx, o, def, g); err != nil {
			return Result{}, err
		}
		if err := call(o.Hook, PhaseTrained, g); err != nil {
			return Result{}, err
		}
		if def.Last(g) {
			return Finish(o.Out, g, o.Hook)
		}
		if err := StepAfter(o.Out, g, o.Hook); err != nil {
			return Result{}, err
		}
		g++
	}
}

// trainGeneration trains every member through generation g, o.Jobs at a
// time; the errors of all members are returned together.
func trainGeneration(ctx context.Context, o Options, def Definition, g int) error {
	queue := make(chan int)
	var mu sync.Mutex
	var failed []string
	var wg sync.WaitGroup
	for range min(o.Jobs, def.Size) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range queue {
				if err := o.Train(ctx, g, k); err != nil {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("member %d: %v", k, err))
					mu.Unlock()
				}
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
		return fmt.Errorf("population interrupted in generation %d; run the same command again to continue", g)
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return fmt.Errorf("population: generation %d: %d of %d members failed (their logs are train.log in each member's folder); run the same command again to continue:\n  %s",
			g, len(failed), def.Size, strings.Join(failed, "\n  "))
	}
	return nil
}
