package analysis

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Published is a score another project reports for an environment. A
// report shows each row's score beside it (a table, and a line in the
// evaluation panels of the figures): how far the runs are from what
// tuning reached elsewhere.
type Published struct {
	Score  float64 `json:"score"`
	Frames float64 `json:"frames,omitempty"` // the frames it trained on; 0: not stated
	Source string  `json:"source"`           // who reports it
}

// RLZoo names RLZooScores in Set.SetPublished.
const RLZoo = "rl-zoo"

// rlZooSource is the source of RLZooScores.
const rlZooSource = "RL Baselines3 Zoo, tuned PPO, v3 environments"

// RLZooScores returns RL Baselines3 Zoo's tuned PPO scores from its
// benchmark table for the environments hyperctl also has: per
// environment, its hyperparameters tuned for it, 1M steps (BipedalWalker:
// 5M), on the v3 environments (hyperctl's MuJoCo tasks are v4).
func RLZooScores() map[string]Published {
	at := func(score, frames float64) Published {
		return Published{Score: score, Frames: frames, Source: rlZooSource}
	}
	return map[string]Published{
		"halfcheetah":   at(5819, 1e6),
		"hopper":        at(2410, 1e6),
		"walker2d":      at(3479, 1e6),
		"ant":           at(1327, 1e6),
		"swimmer":       at(282, 1e6),
		"bipedalwalker": at(288, 5e6),
	}
}

// SetPublished sets s.Published from specs, each RLZoo (the scores of
// RLZooScores) or ENV=SCORE (a score the user gives: a finite number, for
// an environment of s). A later spec replaces an earlier one's score of
// the same environment. No specs: none.
func (s *Set) SetPublished(specs []string) error {
	out := map[string]Published{}
	for _, spec := range specs {
		if spec == RLZoo {
			for env, p := range RLZooScores() {
				out[env] = p
			}
			continue
		}
		env, v, ok := strings.Cut(spec, "=")
		env = strings.TrimSpace(env)
		score, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || env == "" || err != nil || math.IsNaN(score) || math.IsInf(score, 0) {
			return fmt.Errorf("%q: want %s or ENV=SCORE with a finite SCORE", spec, RLZoo)
		}
		if !slices.Contains(s.Envs(), env) {
			return fmt.Errorf("%q: no environment %s here (there are %s)", spec, env, strings.Join(s.Envs(), ", "))
		}
		out[env] = Published{Score: score, Source: "given"}
	}
	s.Published = out
	return nil
}

// PublishedRow is one controller's score on one environment beside the
// environment's published score.
type PublishedRow struct {
	Env        string    `json:"env"`
	Controller string    `json:"controller"`
	Published  Published `json:"published"`
	Runs       int       `json:"runs"`             // finished runs with a score
	IQM        CI        `json:"iqm"`              // of the scores (raw returns)
	AtOrAbove  int       `json:"runs_at_or_above"` // runs scoring at least the published score
}

// publishedRows returns, for every environment of s with a published
// score (s.Published), each controller's IQM of its scores with its CI
// (st's) and how many of its runs reach the published score; by
// environment, then controller.
func (s *Set) publishedRows(st *Stats) []PublishedRow {
	var rows []PublishedRow
	for _, env := range s.Envs() {
		p, ok := s.Published[env]
		if !ok {
			continue
		}
		scores, _ := s.budgetEvals(env)
		ctrls := make([]string, 0, len(scores))
		for c := range scores {
			ctrls = append(ctrls, c)
		}
		sort.Strings(ctrls)
		for _, c := range ctrls {
			iq := nanInterval
			if es, ok := st.PerEnv[env][c]; ok {
				iq = es.IQM
			}
			r := PublishedRow{Env: env, Controller: c, Published: p, Runs: len(scores[c]), IQM: ci(iq)}
			for _, v := range scores[c] {
				if v >= p.Score {
					r.AtOrAbove++
				}
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// publishedMarkdown writes the section that shows each row beside the
// published scores; nothing when no environment of s has one.
func (s *Set) publishedMarkdown(sb *strings.Builder, st *Stats) {
	rows := s.publishedRows(st)
	if len(rows) == 0 {
		return
	}
	sb.WriteString("## Beside published scores\n\n")
	fmt.Fprintf(sb, "Each row's IQM of its %s (raw returns) with its 95 %% CI, beside a score published for the environment, and how many of its runs reach that score. A published score comes from another trainer and setup: a mark to read the runs against, not a row of the statistics.\n\n", s.words().what)
	for _, env := range s.Envs() {
		if p, ok := s.Published[env]; ok {
			fmt.Fprintf(sb, "- %s: %s\n", env, p.describe())
		}
	}
	sb.WriteString("\n| env | published | controller | runs | IQM [95 % CI] | runs at or above |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(sb, "| %s | %s | %s | %d | %s | %d of %d |\n", r.Env, fmtPublished(r.Published.Score), r.Controller, r.Runs, fmtIv(r.IQM.interval(), 2), r.AtOrAbove, r.Runs)
	}
	sb.WriteString("\n")
}

// fmtPublished writes a published score with every digit it was given,
// in exponent form at 1e7 and above or below 1e-4 in size (as fmtNum and
// the axes do), so that an extreme score stays short.
func fmtPublished(v float64) string {
	if a := math.Abs(v); v != 0 && (a >= 1e7 || a < 1e-4) {
		return expForm(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// publishedLine draws p's published score across a panel as a dotted grey
// line, and returns it for the legend.
func publishedLine(panel *plot.Plot, p Published) *plotter.Function {
	return hline(panel, p.Score, color.Gray{Y: 90}, []vg.Length{vg.Points(2), vg.Points(2)})
}

// describe says what the score is: its value, source and frames.
func (p Published) describe() string {
	s := fmtPublished(p.Score) + " (" + p.Source
	if p.Frames > 0 {
		s += ", " + fmtPublished(p.Frames) + " frames"
	}
	return s + ")"
}

// label is the published score's legend entry in the figures.
func (p Published) label() string { return "published: " + p.describe() }
