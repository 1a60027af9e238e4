package population

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// StepAfter runs the exploit/explore step after generation g of the population
// in out, unless it is done (the plan of generation g+1 exists): it
// decides from the members' scores (or reads the decision recorded by an
// interrupted attempt), copies each exploited member's donor into its run
// folder, appends the step's records to the population log and writes the
// next plan, calling hook (if set) after each phase. The caller holds the
// population's lock; StepAfter takes each copied folder's lock.
func StepAfter(out string, g int, hook Hook) error {
	if _, err := Verify(out); err != nil {
		return err
	}
	if _, done, err := ReadPlan(out, g+1); err != nil || done {
		if err == nil {
			err = os.RemoveAll(stageDir(out, g)) // left by a kill after the plan
		}
		return err
	}
	def, err := ReadDefinition(out)
	if err != nil {
		return err
	}
	if def.Last(g) {
		return fmt.Errorf("population step: generation %d is the last; there is no step after it", g)
	}
	sp, err := space(def)
	if err != nil {
		return err
	}
	plan, ok, err := ReadPlan(out, g)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("population step: %s has no plan for generation %d", out, g)
	}
	st, ok, err := ReadStep(out, g)
	if err != nil {
		return err
	}
	if !ok {
		if st, err = decide(out, def, sp, plan); err != nil {
			return err
		}
		if err := WriteStep(out, st); err != nil {
			return err
		}
		if err := call(hook, PhaseDecided, g); err != nil {
			return err
		}
	}
	if len(st.Members) != def.Size {
		return fmt.Errorf("population step: the record of generation %d has %d members, the population %d", g, len(st.Members), def.Size)
	}
	src, own, err := stageDonors(out, def, st, hook)
	if err != nil {
		return fmt.Errorf("population step after generation %d: %w", g, err)
	}
	for k, m := range st.Members {
		if m.Donor < 0 {
			continue
		}
		if err := copyMember(src(m.Donor), def.MemberDir(out, k), own(k)); err != nil {
			return fmt.Errorf("population step after generation %d: member %d copies member %d: %w", g, k, m.Donor, err)
		}
		if err := call(hook, PhaseCopied, g); err != nil {
			return err
		}
	}
	alive, err := Alive(out, def, g)
	if err != nil {
		return err
	}
	if err := AppendGeneration(out, g, stepRecords(st, alive)); err != nil {
		return err
	}
	if err := call(hook, PhaseLogged, g); err != nil {
		return err
	}
	next := Plan{Generation: g + 1, Target: def.Target(g + 1)}
	for k, m := range st.Members {
		from := k
		if m.Donor >= 0 {
			from = m.Donor
		}
		next.Members = append(next.Members, PlanMember{Hyper: m.Next, Start: st.Members[from].Frames, Before: st.Members[from].Score, HaveBefore: true})
	}
	if err := WritePlan(out, next); err != nil {
		return err
	}
	if err := os.RemoveAll(stageDir(out, g)); err != nil {
		return err
	}
	return call(hook, PhasePlanned, g)
}

// stageDir holds the staged donors of the step after generation g.
func stageDir(out string, g int) string {
	return filepath.Join(out, GenerationsDir, fmt.Sprintf("stage-%04d", g))
}

// stageDonors makes every copy of a step read its donor as it was at the
// ready point, however often the step is redone. A donor that is itself
// overwritten in the step (a chain: i copies j while j copies k; only
// t-test selection makes them) is first copied into the stage folder,
// which is renamed into place complete, before any member is overwritten;
// its readers copy from there. Under RandomOwn every receiver's own random
// state is staged there too (stageOwn). A step that stages nothing reads
// every donor from its own folder, which the step never writes. It
// returns where each donor is read from, and where receiver k's own state
// is ("" under RandomDonor).
func stageDonors(out string, def Definition, st Step, hook Hook) (src, own func(k int) string, err error) {
	staged := map[int]bool{}
	var receivers []int
	for k, m := range st.Members {
		if m.Donor >= 0 && st.Members[m.Donor].Donor >= 0 {
			staged[m.Donor] = true
		}
		if m.Donor >= 0 && def.ReceiverRandom == RandomOwn {
			receivers = append(receivers, k)
		}
	}
	stage := stageDir(out, st.Generation)
	src = func(d int) string {
		if staged[d] {
			return filepath.Join(stage, fmt.Sprintf("member-%d", d))
		}
		return def.MemberDir(out, d)
	}
	own = func(k int) string {
		if def.ReceiverRandom != RandomOwn {
			return ""
		}
		return filepath.Join(stage, fmt.Sprintf("own-%d", k))
	}
	if len(staged) == 0 && len(receivers) == 0 {
		return src, own, nil
	}
	if _, err := os.Stat(stage); err == nil {
		return src, own, nil // staged by an earlier attempt: members may be overwritten since
	}
	tmp := stage + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, nil, err
	}
	for d := range def.Size {
		if !staged[d] {
			continue
		}
		if err := copyMember(def.MemberDir(out, d), filepath.Join(tmp, fmt.Sprintf("member-%d", d)), ""); err != nil {
			return nil, nil, fmt.Errorf("staging donor %d: %w", d, err)
		}
	}
	for _, k := range receivers {
		if err := stageOwn(def.MemberDir(out, k), filepath.Join(tmp, fmt.Sprintf("own-%d", k))); err != nil {
			return nil, nil, fmt.Errorf("staging member %d's own random state: %w", k, err)
		}
	}
	if err := os.Rename(tmp, stage); err != nil {
		return nil, nil, fmt.Errorf("staging donors: %w", err)
	}
	if err := safefile.SyncDir(filepath.Dir(stage)); err != nil {
		return nil, nil, fmt.Errorf("staging donors: %w", err)
	}
	return src, own, call(hook, PhaseStaged, st.Generation)
}

func call(hook Hook, p Phase, g int) error {
	if hook == nil {
		return nil
	}
	return hook(p, g)
}

// copyMember makes dst a copy of the run in src, holding both folders'
// locks; with own set (RandomOwn), dst then keeps the random state staged
// there (keepOwn).
func copyMember(src, dst, own string) error {
	ls, err := rundir.Acquire(src)
	if err != nil {
		return err
	}
	defer ls.Release()
	ld, err := rundir.Acquire(dst)
	if err != nil {
		return err
	}
	defer ld.Release()
	if err := rundir.CopyRun(src, dst); err != nil || own == "" {
		return err
	}
	return keepOwn(own, dst)
}

// decide reads every member's score at the end of generation plan and
// decides the step (baselines/population.Step) from it and the earlier
// generations' records.
func decide(out string, def Definition, sp controller.Space, plan Plan) (Step, error) {
	g := plan.Generation
	alive, err := Alive(out, def, g)
	if err != nil {
		return Step{}, err
	}
	in := popmethod.Input{Settings: def.Settings, Space: sp, Seed: uint64(def.Seed), Generation: g}
	for k, pm := range plan.Members {
		if err := checkReady(out, def, g, k, alive[k]); err != nil {
			return Step{}, fmt.Errorf("population step after generation %d: %w", g, err)
		}
		r, err := Score(def.MemberDir(out, k))
		if err != nil {
			return Step{}, fmt.Errorf("population step after generation %d: member %d: %w", g, k, err)
		}
		if alive[k] && r.Frames < plan.Target {
			return Step{}, fmt.Errorf("population step after generation %d: member %d is at %d frames, short of the target %d: it has not finished this generation (see its train.log)", g, k, r.Frames, plan.Target)
		}
		iv, err := interval(sp, pm, r.Frames, r.Score)
		if err != nil {
			return Step{}, fmt.Errorf("population step after generation %d: member %d: %w", g, k, err)
		}
		if def.Settings.Selection == popmethod.SelectTTest {
			if iv.Returns, err = rundir.LatestReturns(def.MemberDir(out, k), def.Settings.TTestEpisodes); err != nil {
				return Step{}, fmt.Errorf("population step after generation %d: member %d: t-test selection's episode returns: %w", g, k, err)
			}
		}
		in.Members = append(in.Members, iv)
	}
	for h := range g {
		p, ok1, err1 := ReadPlan(out, h)
		s, ok2, err2 := ReadStep(out, h)
		if err := errors.Join(err1, err2); err != nil {
			return Step{}, err
		}
		if !ok1 || !ok2 || len(p.Members) != len(s.Members) {
			return Step{}, fmt.Errorf("population step after generation %d: the plan and step of generation %d are missing or disagree", g, h)
		}
		for k, pm := range p.Members {
			iv, err := interval(sp, pm, s.Members[k].Frames, s.Members[k].Score)
			if err != nil {
				return Step{}, fmt.Errorf("population step: generation %d, member %d: %w", h, k, err)
			}
			in.History = append(in.History, iv)
		}
	}
	var ds []popmethod.Decision
	if def.Settings.Method == popmethod.Halving { // promotion reads the record's scores (Alive)
		for _, m := range in.Members {
			ds = append(ds, popmethod.Decision{Donor: -1, From: -1, Config: m.Config})
		}
	} else if ds, err = popmethod.Step(in); err != nil {
		return Step{}, err
	}
	st := Step{Generation: g}
	for k, d := range ds {
		m := StepMember{Frames: int64(in.Members[k].End), Score: in.Members[k].After, Hyper: sp.Map(in.Members[k].Config),
			Donor: d.Donor, Next: sp.Map(d.Config), Window: d.Window, Kappa: d.Kappa}
		if d.Ops != nil {
			m.Ops = map[string]string{}
			for i, name := range sp.Names() {
				m.Ops[name] = d.Ops[i]
			}
		}
		st.Members = append(st.Members, m)
	}
	return st, nil
}

// interval is a plan member's generation as baselines/population sees it.
func interval(sp controller.Space, pm PlanMember, end int64, score float64) (popmethod.Interval, error) {
	c, err := pm.Config(sp)
	if err != nil {
		return popmethod.Interval{}, err
	}
	return popmethod.Interval{Start: float64(pm.Start), End: float64(end), Before: pm.Before, HaveBefore: pm.HaveBefore, After: score, Config: c}, nil
}

// stepRecords are a step's log records: every alive member's ready
// record, then each exploited member's exploit and explore. The explore
// record's old configuration is the one the new was made from: the
// donor's, except for an MF-PBT migrant that takes its own
// sub-population's best member's configuration as it is (all its ops
// "copy"), whose old is its new.
func stepRecords(st Step, alive []bool) []Record {
	var recs []Record
	for k, m := range st.Members {
		if !alive[k] {
			continue
		}
		recs = append(recs, Record{Generation: st.Generation, Event: EventReady, Member: k, Frames: m.Frames, Score: ptr(m.Score), Hyper: m.Hyper})
	}
	for k, m := range st.Members {
		if m.Donor < 0 {
			continue
		}
		d := st.Members[m.Donor]
		old := d.Hyper
		if copied(m.Ops) {
			old = m.Next
		}
		recs = append(recs,
			Record{Generation: st.Generation, Event: EventExploit, Member: k, Frames: d.Frames, Score: ptr(m.Score), From: ptr(m.Donor), FromScore: ptr(d.Score)},
			Record{Generation: st.Generation, Event: EventExplore, Member: k, Frames: d.Frames, Old: old, New: m.Next, Ops: m.Ops})
	}
	return recs
}

// copied reports whether every op is an MF-PBT migrant's "copy".
func copied(ops map[string]string) bool {
	for _, op := range ops {
		if op != "copy" {
			return false
		}
	}
	return len(ops) > 0
}

func ptr[T any](v T) *T { return &v }

// Finish writes the end of the population after its last generation g
// trained, unless result.json exists: every member's end record in the
// log (frames, score, configuration, final evaluation) and result.json,
// which names the member with the highest final evaluation return.
func Finish(out string, g int, hook Hook) (Result, error) {
	if r, err := ReadResult(out); err == nil {
		return r, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	def, err := ReadDefinition(out)
	if err != nil {
		return Result{}, err
	}
	if _, err := Verify(out); err != nil {
		return Result{}, err
	}
	plan, ok, err := ReadPlan(out, g)
	if err != nil || !ok || !def.Last(g) {
		return Result{}, fmt.Errorf("population: generation %d is not the last planned one (%v)", g, err)
	}
	alive, err := Alive(out, def, g)
	if err != nil {
		return Result{}, err
	}
	res := Result{Best: -1}
	var recs []Record
	evals := make([]float64, def.Size)
	for k := range def.Size {
		dir := def.MemberDir(out, k)
		rel, _ := filepath.Rel(out, dir)
		if err := checkReady(out, def, g, k, alive[k]); err != nil {
			return res, fmt.Errorf("population: %w", err)
		}
		r, err := Score(dir)
		if err != nil {
			return res, fmt.Errorf("population: member %d: %w", k, err)
		}
		evals[k] = math.NaN()
		if !alive[k] { // stopped by successive halving at an earlier rung
			res.Members = append(res.Members, ResultMember{Dir: rel, Frames: r.Frames, Score: r.Score})
			continue
		}
		sum, err := rundir.ReadSummary(dir)
		if err != nil {
			return res, fmt.Errorf("population: member %d has not finished (%s): %w", k, dir, err)
		}
		res.Members = append(res.Members, ResultMember{Dir: rel, Frames: sum.Frames, FinalEvalReturn: sum.FinalEvalReturn, Score: r.Score})
		recs = append(recs, Record{Generation: g, Event: EventEnd, Member: k, Frames: sum.Frames, Score: ptr(r.Score),
			Hyper: plan.Members[k].Hyper, EvalReturn: sum.FinalEvalReturn})
		if e := sum.FinalEvalReturn; e != nil {
			evals[k] = *e
		}
	}
	if best, err := popmethod.Best(evals); err == nil {
		res.Best = best
	} else if slices.ContainsFunc(evals, func(e float64) bool { return !math.IsNaN(e) }) {
		return res, fmt.Errorf("population %s: %w", out, err)
	}
	if err := AppendGeneration(out, g, recs); err != nil {
		return res, err
	}
	if err := WriteResult(out, res); err != nil {
		return res, err
	}
	return res, call(hook, PhaseFinished, g)
}
