package population

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// The population log is written only from sealed files: the records of
// generation G from the step after it (stepRecords), the end records from
// result.json's members and the last plan. So every record of a step that
// is done (the next plan exists) and of a finished population can be
// derived again, and Verify checks the log against them: a record that is
// deleted, duplicated, reordered, added or cut (a torn last line after the
// plan that follows it) is refused with the file and the line, and with
// the record the sealed files give there. Only the generation whose step
// is being applied (its step written, the next plan not yet) may hold a
// prefix of its records, and the last generation of an unfinished
// population end records: an interrupted append, which the step or Finish
// cuts and writes again.

// Verified is a population folder as Verify read it: every plan, step
// and result checked, and the log checked against them.
type Verified struct {
	Def Definition
	// Legacy: written before population files were sealed (Legacy).
	Legacy bool
	// Plans and Steps by generation; Steps[g] is nil when the step after
	// g is not recorded (or, in a legacy folder, its file is missing).
	Plans []Plan
	Steps []*Step
	// Result is result.json, nil while the population runs.
	Result *Result
	// Records is the log's records.
	Records []Record
}

// genFile matches the file names of the generations folder.
var genFile = regexp.MustCompile(`^(plan|step)-([0-9]{4,})\.json$`)

// Verify reads every sealed file of the population in out and checks them
// together: the definition, each generation's plan (0, 1, … with none
// missing or left over), the step after each generation but the current
// one, result.json, and the population log against the records they give.
// A legacy population (its population.json and plan-0000.json written
// without checksums, by hyperctl before population files were sealed) is
// read unsealed and checked wherever its files allow. Errors name the file
// (and line); a missing population.json matches fs.ErrNotExist.
func Verify(out string) (Verified, error) {
	var v Verified
	def, legacy, err := readDefinition(out, Legacy)
	if err != nil {
		return v, err
	}
	v.Def, v.Legacy = def, legacy
	strict := Sealed
	if legacy {
		strict = Legacy
	}
	for g := 0; ; g++ {
		var p Plan
		ok, err := readGen(out, "plan", g, &p, strict)
		if err != nil {
			return v, err
		}
		if !ok {
			break
		}
		if p.Generation != g || len(p.Members) != def.Size {
			return v, fmt.Errorf("%s is damaged: generation %d with %d members, want generation %d with %d", genPath(out, "plan", g), p.Generation, len(p.Members), g, def.Size)
		}
		v.Plans = append(v.Plans, p)
	}
	cur := len(v.Plans) - 1
	if err := noStrayGenerations(out, cur); err != nil {
		return v, err
	}
	for g := 0; g <= cur; g++ {
		var s Step
		ok, err := readGen(out, "step", g, &s, strict)
		if err != nil {
			return v, err
		}
		if ok {
			if err := checkStep(out, def, g, s); err != nil {
				return v, err
			}
			v.Steps = append(v.Steps, &s)
			continue
		}
		if g < cur && !legacy {
			return v, fmt.Errorf("%s is missing, but %s, which it is written before, exists: the folder is damaged", genPath(out, "step", g), genPath(out, "plan", g+1))
		}
		v.Steps = append(v.Steps, nil)
	}
	var res Result
	if _, err := readJSON(filepath.Join(out, ResultFile), &res, strict); err == nil {
		if cur < 0 || !def.Last(cur) {
			return v, fmt.Errorf("%s exists, but generation %d's plan is the last one written, of %d: the folder is damaged", filepath.Join(out, ResultFile), cur, def.Generations())
		}
		if len(res.Members) != def.Size {
			return v, fmt.Errorf("%s is damaged: %d members, the population %d", filepath.Join(out, ResultFile), len(res.Members), def.Size)
		}
		v.Result = &res
	} else if !errors.Is(err, fs.ErrNotExist) {
		return v, err
	}
	recs, _, err := readLog(out, strict)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return v, err
	}
	v.Records = recs
	return v, v.checkLog(out)
}

// readGen reads generation g's file of kind (plan, step) into v; ok is
// false when it does not exist.
func readGen(out, kind string, g int, v any, strict Strictness) (bool, error) {
	_, err := readJSON(genPath(out, kind, g), v, strict)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// checkStep checks the numbers of the step after generation g.
func checkStep(out string, def Definition, g int, s Step) error {
	if s.Generation != g || len(s.Members) != def.Size {
		return fmt.Errorf("%s is damaged: generation %d with %d members, want generation %d with %d", genPath(out, "step", g), s.Generation, len(s.Members), g, def.Size)
	}
	for i, m := range s.Members {
		if !finite(m.Score) || m.Donor < -1 || m.Donor >= len(s.Members) {
			return fmt.Errorf("%s is damaged: member %d: score %v, donor %d", genPath(out, "step", g), i, m.Score, m.Donor)
		}
	}
	return nil
}

// noStrayGenerations refuses a plan after the current generation cur, or a
// step after a generation past it: a plan before them was deleted.
func noStrayGenerations(out string, cur int) error {
	ents, err := os.ReadDir(filepath.Join(out, GenerationsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		m := genFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		g, err := strconv.Atoi(m[2])
		if err == nil && g > cur {
			return fmt.Errorf("%s exists, but %s does not: the folder is damaged (a plan was deleted)", filepath.Join(out, GenerationsDir, e.Name()), genPath(out, "plan", cur+1))
		}
	}
	return nil
}

// alive returns who trains in each generation with a plan, and in the
// next one when the step after the current generation is decided, from
// the steps (Alive's rule); for a legacy folder that lacks a step, the
// generations from it on are not known (nil).
func (v *Verified) alive() ([][]bool, error) {
	rungs, err := v.Def.Rungs()
	if err != nil {
		return nil, err
	}
	out := make([][]bool, len(v.Plans))
	if rungs == nil {
		for g := range out {
			out[g] = allAlive(v.Def.Size)
		}
		return out, nil
	}
	sets, err := promote(v.Def, rungs, min(len(v.Plans), len(rungs)-1), func(h int) (Step, bool, error) {
		if v.Steps[h] == nil {
			return Step{}, false, nil
		}
		return *v.Steps[h], true, nil
	})
	if len(sets) > len(out) {
		return sets, err
	}
	copy(out, sets)
	return out, err
}

// derived returns the log's records the sealed files give, generation by
// generation: whole for a done step and a finished population; pending is
// the records of the step being applied, which the log may hold a prefix
// of. from[i] names the file record i comes from.
func (v *Verified) derived(out string) (recs []Record, from []string, pending []Record, err error) {
	alive, err := v.alive()
	if err != nil {
		return nil, nil, nil, err
	}
	cur := len(v.Plans) - 1
	for g := 0; g <= cur; g++ {
		if v.Steps[g] == nil || alive[g] == nil {
			continue
		}
		rs := stepRecords(*v.Steps[g], alive[g])
		if g == cur {
			pending = rs
			break
		}
		for range rs {
			from = append(from, genPath(out, "step", g))
		}
		recs = append(recs, rs...)
	}
	if v.Result != nil && cur >= 0 && alive[cur] != nil {
		for k, m := range v.Result.Members {
			if !alive[cur][k] {
				continue
			}
			recs = append(recs, Record{Generation: cur, Event: EventEnd, Member: k, Frames: m.Frames, Score: ptr(m.Score),
				Hyper: v.Plans[cur].Members[k].Hyper, EvalReturn: m.FinalEvalReturn})
			from = append(from, filepath.Join(out, ResultFile))
		}
	}
	return recs, from, pending, nil
}

// checkLog checks the log's records against the sealed files (see the
// comment at the top of this file). A legacy log is checked over the
// generations whose steps are there.
func (v *Verified) checkLog(out string) error {
	want, from, pending, err := v.derived(out)
	if err != nil {
		return err
	}
	path := filepath.Join(out, LogFile)
	got := v.Records
	if v.Legacy {
		got = v.knownRecords()
	}
	refuse := func(line int, why string) error {
		return fmt.Errorf("%s: line %d is refused (the log is left as it is; restore it, or start the population over in another folder): %w: %s", path, line, ErrDamaged, why)
	}
	for i, w := range want {
		if i >= len(got) {
			return refuse(len(got)+1, fmt.Sprintf("the log ends before it, but %s gives a record there (%s): records were deleted or cut", from[i], recordText(w)))
		}
		if recordText(got[i]) != recordText(w) {
			return refuse(i+1, fmt.Sprintf("%s gives %s there, the line holds %s: records were deleted, duplicated, reordered or changed", from[i], recordText(w), recordText(got[i])))
		}
	}
	rest := got[len(want):]
	cur := len(v.Plans) - 1
	for i, r := range rest {
		ok := false
		switch {
		case pending != nil:
			ok = i < len(pending) && recordText(r) == recordText(pending[i])
		case v.Result == nil && cur >= 0 && v.Def.Last(cur):
			ok = r.Generation == cur && r.Event == EventEnd && (i == 0 || r.Member > rest[i-1].Member)
		}
		if !ok {
			return refuse(len(want)+i+1, fmt.Sprintf("no sealed file gives this record (%s): records were duplicated, added or moved", recordText(r)))
		}
	}
	return nil
}

// knownRecords is a legacy log's records of the generations whose steps
// (and, for the end records, result) are there: the part Verify checks.
func (v *Verified) knownRecords() []Record {
	var out []Record
	for _, r := range v.Records {
		g := r.Generation
		if g < 0 || g >= len(v.Steps) {
			return v.Records // checked as it is: refused below
		}
		if r.Event == EventEnd || v.Steps[g] != nil {
			out = append(out, r)
		}
	}
	return out
}

// recordText is a record's JSON without its seal.
func recordText(r Record) string {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Sprintf("%+v", r)
	}
	return string(b)
}
