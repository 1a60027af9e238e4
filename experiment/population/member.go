package population

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/rs/zerolog"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/experiment/internal/member"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// MemberOptions configure TrainMember.
type MemberOptions struct {
	Threads int // libtorch threads and environment workers (0: the config's)
	Log     zerolog.Logger
	Version string
	// Train trains the member's run folder: experiment/run's TrainMember
	// (required; this package leaves training, and so cgo, to its caller).
	Train member.Trainer
}

// TrainMember trains member k of the population in out through generation
// g: from its checkpoint (or from scratch) to the generation's frame
// target, with the configuration generation g's plan gives it, then it
// pauses (the checkpoint written); in the last generation it trains to its
// budget and finishes. A member already at its target, and a generation
// whose step is done, return at once. It holds the member's run folder
// lock while it trains (a second writer gets a *rundir.LockedError).
func TrainMember(ctx context.Context, out string, g, k int, o MemberOptions) error {
	if o.Train == nil {
		return fmt.Errorf("population member: MemberOptions.Train is nil; pass experiment/run's TrainMember")
	}
	def, err := ReadDefinition(out)
	if err != nil {
		return fmt.Errorf("population member: %w", err)
	}
	if _, err := Verify(out); err != nil {
		return fmt.Errorf("population member %d, generation %d: refused before training: %w", k, g, err)
	}
	if k < 0 || k >= def.Size {
		return fmt.Errorf("population member: member %d of a population of %d", k, def.Size)
	}
	plan, ok, err := ReadPlan(out, g)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("population member: %s has no plan for generation %d", out, g)
	}
	if _, next, err := ReadPlan(out, g+1); err != nil || next {
		return err // generation g is over
	}
	if alive, err := Alive(out, def, g); err != nil {
		return fmt.Errorf("population member %d, generation %d: %w", k, g, err)
	} else if !alive[k] {
		return nil // stopped by successive halving: it stays paused
	}
	cfg, err := memberRun(def, out, k)
	if err != nil {
		return err
	}
	if o.Threads > 0 {
		cfg.PPO.Threads = o.Threads
	}
	rp, err := cfg.Resolve()
	if err != nil {
		return fmt.Errorf("population member %d: %w", k, err)
	}
	if rp.ControllerName() != configs.Population {
		return fmt.Errorf("population member %d: its config's controller is %s, not %s", k, rp.ControllerName(), configs.Population)
	}
	given, err := plan.Members[k].Config(rp.Controller.Space)
	if err != nil {
		return fmt.Errorf("population member %d, generation %d: %w", k, g, err)
	}
	until := plan.Target
	if def.Last(g) {
		until = 0
	}
	since, err := givenSince(out, plan, k)
	if err != nil {
		return fmt.Errorf("population member %d, generation %d: %w", k, g, err)
	}
	dir := def.MemberDir(out, k)
	paused, err := o.Train(ctx, rp, dir, member.Generation{Given: given, GivenSince: since, Until: until,
		Episodes: def.Settings.Selection == popmethod.SelectTTest}, o.Log, o.Version)
	if errors.Is(err, member.ErrInexactResume) {
		return fmt.Errorf("population member %d, generation %d: %w", k, g, &words.AdviceError{Msg: "refused, so that the population stays exact: ", Err: err,
			After: ". Restore the member's newest checkpoint, or start the population over in another {out} (a population has no {force} that would redo these rows inexactly)"})
	}
	if err != nil {
		return fmt.Errorf("population member %d, generation %d: %w", k, g, err)
	}
	if !def.Last(g) && !paused {
		return fmt.Errorf("population member %d, generation %d: the run ended before its target of %d frames (its iterations cap is %d); raise iterations in the config", k, g, plan.Target, cfg.Iterations)
	}
	if _, decided, err := ReadStep(out, g); err != nil || decided {
		return err // the step is being applied: its copies may have replaced the folder
	}
	if err := sealReady(out, def, g, k); err != nil {
		return fmt.Errorf("population member %d, generation %d: %w", k, g, err)
	}
	return nil
}

// givenSince is the frame count from which member k's configuration in
// plan has been in force for every row of its run folder: its start in
// plan's generation, or earlier while the generations before trained the
// rows it holds (its own, or its donor's after an exploit) with the same
// configuration. A resume from a checkpoint before it would not be exact.
func givenSince(out string, plan Plan, k int) (int64, error) {
	given := plan.Members[k].Hyper
	since, cur := plan.Members[k].Start, k
	for h := plan.Generation - 1; h >= 0; h-- {
		st, ok1, err1 := ReadStep(out, h)
		p, ok2, err2 := ReadPlan(out, h)
		if err := errors.Join(err1, err2); err != nil {
			return 0, err
		}
		if !ok1 || !ok2 || cur >= len(st.Members) || len(p.Members) != len(st.Members) {
			return 0, fmt.Errorf("the plan and step of generation %d are missing or disagree", h)
		}
		src := cur
		if d := st.Members[cur].Donor; d >= 0 {
			src = d
		}
		if !maps.Equal(p.Members[src].Hyper, given) {
			break
		}
		since, cur = p.Members[src].Start, src
	}
	return since, nil
}
