package population

import (
	"fmt"
	"slices"

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
	alive := make([]bool, def.Size)
	for k := range alive {
		alive[k] = true
	}
	rungs, err := def.Rungs()
	if err != nil || rungs == nil {
		return alive, err
	}
	if g < 0 || g >= len(rungs) {
		return nil, fmt.Errorf("successive halving: generation %d of %d rungs", g, len(rungs))
	}
	for h := range g {
		st, ok, err := ReadStep(out, h)
		if err != nil {
			return nil, err
		}
		if !ok || len(st.Members) != def.Size {
			return nil, fmt.Errorf("successive halving: %s has no step record of generation %d for %d members", out, h, def.Size)
		}
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
		clear(alive)
		for _, k := range next {
			alive[k] = true
		}
	}
	return alive, nil
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
	var pruned []PrunedMember
	before, err := Alive(out, def, 0)
	if err != nil {
		return nil, err
	}
	for g := 0; g+1 < len(rungs); g++ {
		if _, ok, err := ReadStep(out, g); err != nil {
			return nil, err
		} else if !ok {
			break // the rung's step has not run yet
		}
		after, err := Alive(out, def, g+1)
		if err != nil {
			return nil, err
		}
		for k := range after {
			if before[k] && !after[k] {
				pruned = append(pruned, PrunedMember{Member: k, Seed: MemberSeed(def.Seed, def.Size, k), Rung: g, Frames: rungs[g].Frames})
			}
		}
		before = after
	}
	slices.SortFunc(pruned, func(a, b PrunedMember) int { return a.Member - b.Member })
	return pruned, nil
}
