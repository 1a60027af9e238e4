package population

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/hyperctl/hyperctl/controller"
)

// Plan is generations/plan-G.json: what generation G trains.
type Plan struct {
	Generation int          `json:"generation"`
	Target     int64        `json:"target"` // the frame target every member trains to
	Members    []PlanMember `json:"members"`
}

// PlanMember is one member's part of a plan.
type PlanMember struct {
	// Hyper is its configuration during the generation, by key.
	Hyper map[string]float64 `json:"hyperparameters"`
	// Start and Before are where its interval starts: its frames and the
	// score of the weights it starts from (its own, or its donor's after
	// an exploit); HaveBefore is false in generation 0.
	Start      int64   `json:"start_frames"`
	Before     float64 `json:"start_score"`
	HaveBefore bool    `json:"have_start_score"`
}

// Config returns a plan member's configuration in the space's order; a key
// of the space missing from the plan is an error naming it.
func (m PlanMember) Config(space controller.Space) (controller.Config, error) {
	out := make(controller.Config, space.Dim())
	for i, name := range space.Names() {
		v, ok := m.Hyper[name]
		if !ok {
			return nil, fmt.Errorf("the plan has no value for %s", name)
		}
		out[i] = v
	}
	if err := space.Validate(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Step is generations/step-G.json: the exploit/explore step decided at the
// end of generation G, written before any of it is applied.
type Step struct {
	Generation int          `json:"generation"`
	Members    []StepMember `json:"members"`
}

// StepMember is one member's part of a step.
type StepMember struct {
	Frames int64              `json:"frames"` // its frames at the ready point
	Score  float64            `json:"score"`  // its score there (Score)
	Hyper  map[string]float64 `json:"hyperparameters"`
	// Donor is the member whose weights it copies, −1 when it keeps its
	// own.
	Donor int                `json:"donor"`
	Next  map[string]float64 `json:"next_hyperparameters"`
	Ops   map[string]string  `json:"ops,omitempty"`
	// Window and Kappa are PB2's: the points its GP used and √β.
	Window int     `json:"pb2_window,omitempty"`
	Kappa  float64 `json:"pb2_kappa,omitempty"`
}

// Result is result.json, written once the last generation has trained.
type Result struct {
	Members []ResultMember `json:"members"`
	// Best is the member with the highest final evaluation return (the
	// population's pick by its own evaluations), −1 when none evaluated.
	Best int `json:"best"`
}

// ResultMember is one member's outcome.
type ResultMember struct {
	Dir             string   `json:"dir"` // relative to the population folder
	Frames          int64    `json:"frames"`
	FinalEvalReturn *float64 `json:"final_eval_return,omitempty"`
	Score           float64  `json:"score"`
}

func genPath(out, kind string, g int) string {
	return filepath.Join(out, GenerationsDir, fmt.Sprintf("%s-%04d.json", kind, g))
}

// WritePlan writes generation p.Generation's plan atomically, sealed.
func WritePlan(out string, p Plan) error { return writeJSON(genPath(out, "plan", p.Generation), p) }

// ReadPlan reads generation g's sealed plan; ok is false when it does not
// exist. A damaged or unsealed plan is an error naming the file.
func ReadPlan(out string, g int) (Plan, bool, error) {
	var p Plan
	ok, err := readGenOK(out, "plan", g, &p)
	if err == nil && ok && (p.Generation != g || len(p.Members) == 0) {
		return p, false, fmt.Errorf("%s: generation %d with %d members", genPath(out, "plan", g), p.Generation, len(p.Members))
	}
	return p, ok, err
}

// WriteStep writes the step after generation s.Generation atomically,
// sealed.
func WriteStep(out string, s Step) error { return writeJSON(genPath(out, "step", s.Generation), s) }

// ReadStep reads the sealed step after generation g; ok is false when it
// does not exist. A damaged or unsealed step is an error naming the file.
func ReadStep(out string, g int) (s Step, ok bool, err error) {
	ok, err = readGenOK(out, "step", g, &s)
	if err == nil && ok {
		if s.Generation != g {
			return s, false, fmt.Errorf("%s: generation %d", genPath(out, "step", g), s.Generation)
		}
		for i, m := range s.Members {
			if !finite(m.Score) || m.Donor < -1 || m.Donor >= len(s.Members) {
				return s, false, fmt.Errorf("%s: member %d: score %v, donor %d", genPath(out, "step", g), i, m.Score, m.Donor)
			}
		}
	}
	return s, ok, err
}

func readGenOK(out, kind string, g int, v any) (bool, error) {
	_, err := readJSON(genPath(out, kind, g), v, Sealed)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// WriteResult writes result.json atomically, sealed.
func WriteResult(out string, r Result) error { return writeJSON(filepath.Join(out, ResultFile), r) }

// ReadResult reads the sealed result.json; a missing file matches
// fs.ErrNotExist, a damaged or unsealed one is an error naming it.
func ReadResult(out string) (Result, error) {
	var r Result
	_, err := readJSON(filepath.Join(out, ResultFile), &r, Sealed)
	return r, err
}

// ReadResultLegacy is ReadResult for readers that steer nothing (status,
// report, eval): in a legacy population (folderStrictness) it also
// accepts an unsealed result.json, and says so.
func ReadResultLegacy(out string) (r Result, legacy bool, err error) {
	strict, err := folderStrictness(out)
	if err != nil {
		return r, false, err
	}
	legacy, err = readJSON(filepath.Join(out, ResultFile), &r, strict)
	return r, legacy, err
}
