package population

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// Phase names a point between the phases of a population, where a test
// hook may stop it (as a kill there would).
type Phase string

// The phases, in the order they end within a generation.
const (
	PhaseTrained  Phase = "trained"  // every member reached the generation's target
	PhaseDecided  Phase = "decided"  // the step's record is written
	PhaseStaged   Phase = "staged"   // the donors that are themselves overwritten (t-test chains), and under RandomOwn the receivers' own random state, are staged
	PhaseCopied   Phase = "copied"   // one exploited member's folder is a copy of its donor's (once per copy)
	PhaseLogged   Phase = "logged"   // the step's records are in the population log
	PhasePlanned  Phase = "planned"  // the next generation's plan is written: the step is done
	PhaseFinished Phase = "finished" // the last generation's records and result.json are written
)

// Hook is called after each phase; an error stops the population there
// and is returned.
type Hook func(p Phase, generation int) error

// Neutral is a member config's text with the member-specific settings
// (seed, threads) cleared: every member of a population has the same.
func Neutral(r configs.Run) (string, error) {
	r.Seed, r.PPO.Threads = 0, 0
	return r.Encode()
}

// Init prepares out for the population def, whose members train with the
// config base (its seed and threads are ignored): it writes
// population.json, compare.json (the members as a compare matrix, for
// `hyperctl status` and `hyperctl report`) and generation 0's plan, unless
// they exist. An existing folder must hold the same population (the error
// shows the difference), or nothing: a folder with files but no
// population.json (a run folder, anything else) is refused. A legacy
// (unsealed) population is accepted only when finished (initLegacy).
func Init(out string, def Definition, base configs.Run) error {
	old, err := ReadDefinition(out)
	switch {
	case err == nil:
		if err := sameDefinition(out, old, def); err != nil {
			return err
		}
	case errors.Is(err, ErrUnsealed):
		return initLegacy(out, def, err)
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fmt.Errorf("population: %w", err)
		}
		if err := checkEmpty(out); err != nil {
			return err
		}
		if err := WriteDefinition(out, def); err != nil {
			return err
		}
	default:
		return err
	}
	man := matrix.Manifest{Envs: []string{def.Env}, Controllers: []string{def.Settings.Method}, Seeds: def.MemberSeeds(),
		Iterations: base.Iterations, Frames: def.Frames, Command: def.Command, Label: def.Settings.Label()}
	if _, err := os.Stat(filepath.Join(out, matrix.ManifestFile)); errors.Is(err, fs.ErrNotExist) {
		if err := matrix.WriteManifest(out, man); err != nil {
			return err
		}
	}
	if _, ok, err := ReadPlan(out, 0); err != nil || ok {
		return err
	}
	space, err := base.Controller.Space()
	if err != nil {
		return err
	}
	start, err := base.StartConfig(space)
	if err != nil {
		return err
	}
	cfgs, err := def.Settings.Starts(space, def.Size, start, uint64(def.Seed))
	if err != nil {
		return err
	}
	p := Plan{Generation: 0, Target: def.Target(0)}
	for _, c := range cfgs {
		p.Members = append(p.Members, PlanMember{Hyper: space.Map(c)})
	}
	return WritePlan(out, p)
}

// initLegacy is Init for a folder whose population.json has no checksum
// (written before population files were sealed): a finished population of
// the same definition is accepted as it is, to be read (its result is
// final, and nothing of it steers training any more); an unfinished one is
// refused, since its plans and steps cannot be checked.
func initLegacy(out string, def Definition, unsealed error) error {
	old, _, err := ReadDefinitionLegacy(out)
	if err != nil {
		return err
	}
	if err := sameDefinition(out, old, def); err != nil {
		return err
	}
	if _, _, err := ReadResultLegacy(out); err == nil {
		return nil
	}
	return &words.AdviceError{Err: unsealed, After: unsealedAdvice}
}

// unsealedAdvice is initLegacy's refusal of an unfinished population.
const unsealedAdvice = "; an unfinished population written before population files were sealed cannot be continued with its files checked: start it over in another {out}"

// sameDefinition refuses a folder holding another population than def,
// showing the difference. A population defined before the receiver's
// random state was recorded (Definition.ReceiverRandom absent) is the same
// as def under either rule: it continues under the one it started with.
func sameDefinition(out string, old, def Definition) error {
	if old.ReceiverRandom == RandomDonor {
		def.ReceiverRandom = RandomDonor // defined before the rule was recorded: it keeps the donor's (inherit.go)
	}
	if d := old.Same(&def); d != "" {
		return &words.AdviceError{Msg: fmt.Sprintf("%s holds another population; use another {out}, or delete it to start over. Differences (- in the folder, + now):\n%s", out, d)}
	}
	return nil
}

// checkEmpty refuses a folder meant for a new population that holds
// anything but hidden entries (an interrupted atomic write's temporary
// file, the population's lock).
func checkEmpty(out string) error {
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("population: %w", err)
	}
	var names []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return &words.AdviceError{Msg: fmt.Sprintf("{out} %s holds files but no %s, so it is not a population (it holds %s); use another {out}, an empty or new folder", out, DefinitionFile, strings.Join(names, ", "))}
}

// Lock takes the population folder's lock: one process runs its phases
// at a time.
func Lock(out string) (*safefile.Lock, error) {
	return safefile.Acquire(out, LockFile, "population folder")
}

// Current returns the latest generation with a plan (−1: none).
func Current(out string) (int, error) {
	g := -1
	for {
		_, ok, err := ReadPlan(out, g+1)
		if err != nil {
			return g, err
		}
		if !ok {
			return g, nil
		}
		g++
	}
}

// memberRun is member k's config: its folder's config.toml once it has one
// (after an exploit, its donor's, whose seed it carries), else the
// population's with the member's seed. A folder whose config is not the
// population's is refused.
func memberRun(def Definition, out string, k int) (configs.Run, error) {
	dir := def.MemberDir(out, k)
	path := filepath.Join(dir, "config.toml")
	var run configs.Run
	var err error
	if _, serr := os.Stat(path); serr == nil {
		if run, err = configs.Load(path); err != nil {
			return run, err
		}
		n, err := Neutral(run)
		if err != nil {
			return run, err
		}
		if n != def.Config {
			return run, fmt.Errorf("member %d: %s is not this population's config; the folder was written by something else", k, path)
		}
		return run, nil
	}
	seed := MemberSeed(def.Seed, def.Size, k)
	run, err = configs.Parse(filepath.Join(out, DefinitionFile)+" (config)", def.Config, func(r *configs.Run) { r.Seed = seed })
	return run, err
}

// space is the population's tuned space.
func space(def Definition) (controller.Space, error) {
	run, err := configs.Parse("population config", def.Config)
	if err != nil {
		return controller.Space{}, err
	}
	return run.Controller.Space()
}
