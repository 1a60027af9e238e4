package population

import (
	"fmt"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
)

// Successive halving runs on the generations of a population: generation
// g is rung g (Definition.Rungs), whose frame target is the rung's
// frames. Only the members alive in a rung train in it; the others stay
// paused at their checkpoints. Who is alive is not written anywhere: it
// follows from the step records, which hold every member's score at every
// rung's end, by popmethod.Promote, so a resumed population derives the
// same. A step of successive halving copies nothing (every donor is −1)
// and keeps every configuration; its log holds the alive members' ready
// records only.

// Alive reports, per member, whether it trains in generation g: every
// member for the methods other than successive halving and in its first
// rung; after that, the members each step promoted (popmethod.Promote on
// the step's scores, keeping the next rung's members). The steps before g
// must be recorded.
func Alive(out string, def Definition, g int) ([]bool, error) {
	rungs, err := def.Rungs()
	if err != nil || rungs == nil {
		return allAlive(def.Size), err
	}
	if g < 0 || g >= len(rungs) {
		return nil, fmt.Errorf("successive halving: generation %d of %d rungs", g, len(rungs))
	}
	sets, err := aliveSets(out, def, rungs, g)
	if err != nil {
		return nil, err
	}
	if len(sets) <= g {
		return nil, fmt.Errorf("successive halving: %s has no step record of generation %d for %d members", out, len(sets)-1, def.Size)
	}
	return sets[g], nil
}

func allAlive(n int) []bool {
	alive := make([]bool, n)
	for k := range alive {
		alive[k] = true
	}
	return alive
}

// aliveSets returns who is alive in generations 0 … upto of a successive
// halving population (rungs its schedule), in one pass over the step
// records: it stops early, after the last generation whose preceding steps
// are all recorded.
func aliveSets(out string, def Definition, rungs []popmethod.Rung, upto int) ([][]bool, error) {
	return promote(def, rungs, upto, func(h int) (Step, bool, error) { return ReadStep(out, h) })
}

// promote is aliveSets with the step after generation h given by step
// (ok false: not recorded, and the sets stop there).
func promote(def Definition, rungs []popmethod.Rung, upto int, step func(h int) (Step, bool, error)) ([][]bool, error) {
	sets := [][]bool{allAlive(def.Size)}
	for h := 0; h < upto; h++ {
		st, ok, err := step(h)
		if err != nil {
			return nil, err
		}
		if !ok {
			break // the step after generation h has not run yet
		}
		if len(st.Members) != def.Size {
			return nil, fmt.Errorf("successive halving: the step record of generation %d has %d members, the population %d", h, len(st.Members), def.Size)
		}
		alive := sets[h]
		var members []int
		scores := make([]float64, def.Size)
		for k, m := range st.Members {
			scores[k] = m.Score
			if alive[k] {
				members = append(members, k)
			}
		}
		next, err := popmethod.Promote(members, scores, rungs[h+1].Members)
		if err != nil {
			return nil, fmt.Errorf("successive halving: the step after generation %d: %w", h, err)
		}
		promoted := make([]bool, def.Size)
		for _, k := range next {
			promoted[k] = true
		}
		sets = append(sets, promoted)
	}
	return sets, nil
}

// FramesUsed is the frames all members of a finished population trained
// together: the sum of their frames. A member continues from its
// checkpoint, so for successive halving this is popmethod.FramesUsed of
// its rungs up to the overshoot of whole iterations.
func (r Result) FramesUsed() int64 {
	var sum int64
	for _, m := range r.Members {
		sum += m.Frames
	}
	return sum
}

// PrunedMember is a member that successive halving did not promote: it
// trained to the end of rung Rung (0-based, a generation) and no further.
type PrunedMember struct {
	Member int   `json:"member"`
	Seed   int64 `json:"seed"` // its run's seed (MemberSeed)
	Rung   int   `json:"rung"`
	Frames int64 `json:"rung_frames"` // that rung's frame target
}

// Pruned lists the members successive halving has pruned so far, from
// the step records written (Alive's rule), in member order; nil for the
// other methods.
func Pruned(out string, def Definition) ([]PrunedMember, error) {
	rungs, err := def.Rungs()
	if err != nil || rungs == nil {
		return nil, err
	}
	sets, err := aliveSets(out, def, rungs, len(rungs)-1)
	if err != nil {
		return nil, err
	}
	return prunedFrom(def, rungs, sets), nil
}

// pruned is Pruned for a verified folder, from the steps Verify read.
func (v *Verified) pruned() ([]PrunedMember, error) {
	rungs, err := v.Def.Rungs()
	if err != nil || rungs == nil {
		return nil, err
	}
	sets, err := v.alive()
	if err != nil {
		return nil, err
	}
	for g, s := range sets {
		if s == nil { // a legacy folder without the step before g
			sets = sets[:g]
			break
		}
	}
	return prunedFrom(v.Def, rungs, sets), nil
}

// prunedFrom lists the members that are alive in a generation of sets
// and not in the next, in member order.
func prunedFrom(def Definition, rungs []popmethod.Rung, sets [][]bool) []PrunedMember {
	var pruned []PrunedMember
	for k := range def.Size { // member order
		for g := 0; g+1 < len(sets); g++ {
			if sets[g][k] && !sets[g+1][k] {
				pruned = append(pruned, PrunedMember{Member: k, Seed: MemberSeed(def.Seed, def.Size, k), Rung: g, Frames: rungs[g].Frames})
			}
		}
	}
	return pruned
}
