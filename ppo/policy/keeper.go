package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// Keeper keeps a training run's two policies in its folder: Final, the
// latest (written at every evaluation and at the end), and Best, the one
// with the highest evaluation return so far (written when an evaluation
// beats it). With checkpoints, Checkpoint keeps a copy of Best beside the
// checkpoint, so that a resumed run never keeps a Best from iterations its
// checkpoint does not cover.
type Keeper struct {
	dir      string
	best     float64
	haveBest bool
}

// OpenKeeper opens the policies of the run in dir. A run resumed from a
// checkpoint at iteration resumedAt (0 for a new run) that ckptDir covers
// gets back the Best of the checkpoint when the folder's Best is from a
// later iteration (training went on after the checkpoint before it was
// interrupted), or when a kill tore the folder's Best mid-save; with no such
// copy that Best is removed.
func OpenKeeper(dir, ckptDir string, resumedAt int) (*Keeper, error) {
	k := &Keeper{dir: dir}
	if !Exists(dir, Best) {
		return k, nil
	}
	p, err := Load(dir, Best)
	torn := errors.Is(err, ErrTorn)
	if err != nil && !torn {
		return nil, fmt.Errorf("policy: the run's %s: %w", Best, err)
	}
	// A torn pair (the weights file of a new Best beside the sidecar of the
	// old one) is a save that a kill interrupted. A save happens at an
	// evaluation, before the checkpoint of its iteration, so that Best is
	// from after the checkpoint, like one the run trained past.
	if torn || p.Meta.Iteration >= resumedAt { // trained past the checkpoint (iteration index resumedAt is the first one after it)
		if err := k.restore(ckptDir, resumedAt); err != nil {
			return nil, err
		}
		if !Exists(dir, Best) {
			return k, nil
		}
		if p, err = Load(dir, Best); err != nil {
			return nil, fmt.Errorf("policy: the run's %s: %w", Best, err)
		}
	}
	if p.Meta.EvalReturn != nil {
		k.best, k.haveBest = *p.Meta.EvalReturn, true
	}
	return k, nil
}

// restore replaces the folder's Best with the checkpoint's copy, or removes
// it when the checkpoint has none (or one past resumedAt).
func (k *Keeper) restore(ckptDir string, resumedAt int) error {
	w, m := Paths(k.dir, Best)
	if ckptDir != "" && Exists(ckptDir, Best) {
		if c, err := Load(ckptDir, Best); err == nil && c.Meta.Iteration < resumedAt {
			return c.Save(k.dir, Best)
		}
	}
	for _, p := range []string{m, w} { // sidecar first: a reader never sees a sidecar without weights
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("policy: %w", err)
		}
	}
	return nil
}

// BestReturn is the evaluation return of Best, if there is one.
func (k *Keeper) BestReturn() (float64, bool) { return k.best, k.haveBest }

// Evaluated records an evaluation of p: p (with EvalReturn set) becomes
// Final, and Best when ret beats every earlier evaluation (NaN never does;
// a non-finite return is recorded as absent, JSON has no NaN).
func (k *Keeper) Evaluated(p *Policy, ret float64) (improved bool, err error) {
	r := ret
	p.Meta.EvalReturn = &r
	if !finite(ret) {
		p.Meta.EvalReturn = nil
	}
	if err := p.Save(k.dir, Final); err != nil {
		return false, err
	}
	if !finite(ret) || (k.haveBest && ret <= k.best) {
		return false, nil
	}
	if err := p.Save(k.dir, Best); err != nil {
		return false, err
	}
	k.best, k.haveBest = ret, true
	return true, nil
}

// Final writes p as Final (at the end of a run). Its EvalReturn is left as
// the caller set it.
func (k *Keeper) Final(p *Policy) error { return p.Save(k.dir, Final) }

// Checkpoint copies Best into ckptDir (created if needed), so a run resumed
// from that checkpoint restores it (see OpenKeeper).
func (k *Keeper) Checkpoint(ckptDir string) error {
	if !Exists(k.dir, Best) {
		return nil
	}
	if err := os.MkdirAll(ckptDir, 0o755); err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	w, m := Paths(k.dir, Best)
	for _, src := range []string{w, m} { // weights first, as Save
		b, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("policy: %w", err)
		}
		if err := safefile.WriteAtomic(filepath.Join(ckptDir, filepath.Base(src)), b); err != nil {
			return fmt.Errorf("policy: %w", err)
		}
	}
	return nil
}
