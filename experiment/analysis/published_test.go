package analysis

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// publishedSet is two controllers' runs on swimmer and hopper: fixed
// scores 10, 20, 30 and wide 100, 200, 300 on each.
func publishedSet(t *testing.T) *Set {
	t.Helper()
	var runs []*Run
	for _, env := range []string{"swimmer", "hopper"} {
		for ctrl, base := range map[string]float64{"fixed": 10, "wide": 100} {
			for seed := range int64(3) {
				v := base * float64(seed+1)
				runs = append(runs, &Run{Env: env, Controller: ctrl, Seed: seed, Dir: t.TempDir(), Finished: true,
					Train: []TrainRow{{Iteration: 0, Frames: 100, Wall: 1, Reward: v}, {Iteration: 1, Frames: 200, Wall: 2, Reward: v}},
					Eval:  []EvalRow{{Iteration: 0, Frames: 100, Wall: 1, Return: v / 2}, {Iteration: 1, Frames: 200, Wall: 2, Return: v}}})
			}
		}
	}
	return &Set{Runs: runs, Bootstrap: Bootstrap{Resamples: 200}}
}

// SetPublished reads rl-zoo and ENV=SCORE, a later spec replacing an
// earlier one's environment, and names the spec that is wrong.
func TestSetPublished(t *testing.T) {
	for _, tc := range []struct {
		specs []string
		want  map[string]float64
		err   string
	}{
		{nil, map[string]float64{}, ""},
		{[]string{"rl-zoo"}, map[string]float64{"halfcheetah": 5819, "hopper": 2410, "walker2d": 3479, "ant": 1327, "swimmer": 282, "bipedalwalker": 288}, ""},
		{[]string{"rl-zoo", "swimmer=300.5"}, map[string]float64{"halfcheetah": 5819, "hopper": 2410, "walker2d": 3479, "ant": 1327, "swimmer": 300.5, "bipedalwalker": 288}, ""},
		{[]string{"hopper=-1e3"}, map[string]float64{"hopper": -1000}, ""},
		{[]string{"hoper=3"}, nil, `"hoper=3": no environment hoper here (there are hopper, swimmer)`},
		{[]string{"hopper=abc"}, nil, `"hopper=abc": want rl-zoo or ENV=SCORE with a finite SCORE`},
		{[]string{"hopper=NaN"}, nil, `"hopper=NaN": want`},
		{[]string{"hopper=+Inf"}, nil, `"hopper=+Inf": want`},
		{[]string{"hopper"}, nil, `"hopper": want`},
		{[]string{"=3"}, nil, `"=3": want`},
		{[]string{"rlzoo"}, nil, `"rlzoo": want rl-zoo`},
	} {
		t.Run(strings.Join(tc.specs, ","), func(t *testing.T) {
			s := publishedSet(t)
			err := s.SetPublished(tc.specs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Published) != len(tc.want) {
				t.Fatalf("published %v, want %v", s.Published, tc.want)
			}
			for env, v := range tc.want {
				if s.Published[env].Score != v {
					t.Fatalf("%s: %v, want %v", env, s.Published[env], v)
				}
			}
		})
	}
}

// The report shows each row beside its environment's published score
// (Markdown and JSON: the IQM and the runs that reach it), only for the
// environments that have one, and Figure 1's evaluation panel reaches up
// to the published line while the training panel does not.
func TestPublishedInReport(t *testing.T) {
	s := publishedSet(t)
	var md bytes.Buffer
	if err := s.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Beside published scores") {
		t.Fatalf("a report without published scores has the section:\n%s", md.String())
	}
	if err := s.SetPublished([]string{"swimmer=150"}); err != nil {
		t.Fatal(err)
	}
	wantMarkdown(t, s, "## Beside published scores",
		"- swimmer: 150 (given)\n",
		"| swimmer | 150 | fixed | 3 | 20.00 [",
		"| swimmer | 150 | wide | 3 | 200.00 [",
		"| 2 of 3 |\n")
	tab, err := s.Tables()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tab.JSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Published []struct {
			Env, Controller string
			Published       Published
			Runs            int
			IQM             struct{ Point float64 }
			AtLeast         int `json:"runs_at_or_above"`
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		ctrl    string
		iqm     float64
		atLeast int
	}{{"fixed", 20, 0}, {"wide", 200, 2}}
	if len(got.Published) != len(want) {
		t.Fatalf("JSON published rows %+v, want %v", got.Published, want)
	}
	for i, w := range want {
		g := got.Published[i]
		if g.Env != "swimmer" || g.Controller != w.ctrl || g.Runs != 3 || g.IQM.Point != w.iqm || g.AtLeast != w.atLeast || g.Published.Score != 150 || g.Published.Source != "given" {
			t.Fatalf("JSON row %d: %+v, want swimmer %s IQM %v, %d at least 150", i, g, w.ctrl, w.iqm, w.atLeast)
		}
	}
	for _, tc := range []struct {
		env     string
		reaches bool
	}{{"swimmer", true}, {"hopper", false}} {
		s.Published = map[string]Published{"swimmer": {Score: 1000, Source: "given"}}
		panels, _, _, err := s.figure1(tc.env, Frames)
		if err != nil || len(panels) != 2 {
			t.Fatalf("%s: %d panels, %v", tc.env, len(panels), err)
		}
		if panels[0].Y.Max >= 1000 {
			t.Fatalf("%s: the training panel reaches %v: the published line belongs to the evaluation panel", tc.env, panels[0].Y.Max)
		}
		if got := panels[1].Y.Max >= 1000; got != tc.reaches {
			t.Fatalf("%s: evaluation panel up to %v: reaches the published 1000 %v, want %v", tc.env, panels[1].Y.Max, got, tc.reaches)
		}
	}
}

// A published score is written with its digits but stays short at the
// extremes, and its line keeps a panel's axis finite at the ends of the
// float range.
func TestPublishedExtremes(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{282, "282"}, {-30.4, "-30.4"}, {0, "0"}, {1e6, "1000000"}, {1.7e308, "1.7e308"},
		{-math.MaxFloat64, "-1.7976931348623157e308"}, {1e-300, "1e-300"}, {2.5e-5, "2.5e-5"},
	} {
		if got := fmtPublished(tc.v); got != tc.want {
			t.Errorf("fmtPublished(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
	s := publishedSet(t)
	for _, v := range []float64{math.MaxFloat64, -math.MaxFloat64, 1e300, -1e308} {
		if err := s.SetPublished([]string{"swimmer=" + strconv.FormatFloat(v, 'g', -1, 64)}); err != nil {
			t.Fatal(err)
		}
		panels, _, _, err := s.figure1("swimmer", Frames)
		if err != nil {
			t.Fatal(err)
		}
		y := panels[1].Y
		if math.IsInf(y.Min, 0) || math.IsInf(y.Max, 0) || y.Min > v || y.Max < v {
			t.Errorf("published %g: evaluation axis [%g, %g], want a finite range holding it", v, y.Min, y.Max)
		}
		var md bytes.Buffer
		if err := s.Markdown(&md); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(md.String(), "\n") {
			if strings.HasPrefix(line, "| swimmer | ") && strings.Contains(line, "fixed | 3 |") && len(line) > 120 {
				t.Errorf("published %g: a table row of %d characters: %q", v, len(line), line)
			}
		}
	}
	if _, err := s.Write(t.TempDir()); err != nil { // every figure draws at the extreme
		t.Fatal(err)
	}
}
