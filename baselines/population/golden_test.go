package population

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/step-golden.json")

// goldenDecision is what a step decided for one member, as JSON.
type goldenDecision struct {
	Donor  int
	Config []float64
	Ops    []string
	Window int
	Kappa  float64
}

// TestStepGolden pins the default PBT and PB2 steps: every decision of
// 4 seeds × 4 generations × 2 population sizes, with random scores and
// histories, is the one recorded in testdata/step-golden.json. The file
// was written by this test run on main before the anti-greedy options,
// MF-PBT and random search were added (go test -run TestStepGolden
// -update), so the faithful presets decide byte for byte as before.
func TestStepGolden(t *testing.T) {
	space := testSpace(t)
	got := map[string][]goldenDecision{}
	for _, method := range []string{PBT, PB2} {
		for _, n := range []int{4, 8} {
			for seed := range uint64(4) {
				rng := rand.New(rand.NewPCG(seed, uint64(n)))
				var history []Interval
				for g := range 4 {
					scores := make([]float64, n)
					for i := range scores {
						scores[i] = float64(g) + rng.NormFloat64()
					}
					in := Input{Settings: DefaultSettings(method), Space: space, Seed: seed, Generation: g,
						Members: members(space, scores, g), History: history}
					ds, err := Step(in)
					if err != nil {
						t.Fatal(err)
					}
					key := fmt.Sprintf("%s/n%d/seed%d/gen%d", method, n, seed, g)
					for _, d := range ds {
						got[key] = append(got[key], goldenDecision{Donor: d.Donor, Config: d.Config, Ops: d.Ops, Window: d.Window, Kappa: d.Kappa})
					}
					history = append(history, in.Members...)
				}
			}
		}
	}
	b, err := json.MarshalIndent(got, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "step-golden.json")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(b) {
		var w map[string][]goldenDecision
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		for k, ds := range got {
			if fmt.Sprint(ds) != fmt.Sprint(w[k]) {
				t.Errorf("%s: decided %+v, recorded %+v", k, ds, w[k])
			}
		}
		t.Fatalf("the decisions differ from %s", path)
	}
}
