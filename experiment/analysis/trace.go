package analysis

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// traceRunsDrawn is the most runs of one controller that TraceFigure draws
// one by one; beyond it, their median and the band of their quartiles.
const traceRunsDrawn = 5

// TraceFigure writes DIR/<env>_trace_<key>.png: the value of the
// hyperparameter key at every iteration of each run of env, against the
// frames trained, one colour per controller and one thin line per run, so
// that it shows how a controller moved the key and where a run without one
// kept it; a controller with more than traceRunsDrawn runs is drawn as
// their median at every iteration with the band from the 25th to the 75th
// percentile (a whole compare's 50 lines could not be read). A run whose train.csv has no column for key (train.csv logs the
// paper's four keys and the tuned ones) held it constant: its value from the
// run's config.toml is drawn over the run's frames. The value axis is
// logarithmic when every value is positive and they span a factor of 10 or
// more. It returns "" when no run of env has a value of key; a run whose
// config.toml cannot be read for it is added to s.Problems.
func (s *Set) TraceFigure(env, key, outDir string) (string, error) {
	byCtrl, lo, hi := s.traceLines(env, key)
	if len(byCtrl) == 0 {
		return "", nil
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s at every iteration", env, key)
	p.X.Label.Text = "frames trained"
	p.Y.Label.Text = key
	p.X.Tick.Marker = linearTicks{}
	p.Y.Tick.Marker = linearTicks{}
	if lo > 0 && hi/lo >= 10 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Label.Text += " (log scale)"
	}
	ctrls := make([]string, 0, len(byCtrl))
	for c := range byCtrl {
		ctrls = append(ctrls, c)
	}
	sort.Strings(ctrls)
	leg := newSideLegend()
	var bands, lines []plot.Plotter // every band under every line
	banded := false
	for i, c := range ctrls {
		runs := byCtrl[c]
		if len(runs) > traceRunsDrawn {
			med, band := quartileBand(runs)
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return "", fmt.Errorf("trace %s/%s/%s: %w", env, key, c, err)
			}
			fill := color.NRGBAModel.Convert(plotutil.Color(i)).(color.NRGBA)
			fill.A = 50
			poly.Color, poly.LineStyle.Width = fill, 0
			l, err := plotter.NewLine(med)
			if err != nil {
				return "", fmt.Errorf("trace %s/%s/%s: %w", env, key, c, err)
			}
			l.Color, l.Dashes, l.Width = plotutil.Color(i), plotutil.Dashes(i), vg.Points(2)
			bands, lines = append(bands, poly), append(lines, l)
			leg.Add(fmt.Sprintf("%s (median of %d runs)", c, len(runs)), l)
			banded = true
			continue
		}
		for j, pts := range runs {
			l, err := plotter.NewLine(pts)
			if err != nil {
				return "", fmt.Errorf("trace %s/%s/%s: %w", env, key, c, err)
			}
			l.Color = plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i)
			l.Width = vg.Points(1)
			lines = append(lines, l)
			if j == 0 {
				leg.Add(fmt.Sprintf("%s (%s)", c, matrix.Plural(len(runs), "run", "runs")), l)
			}
		}
	}
	p.Add(bands...)
	p.Add(lines...)
	if banded {
		p.Title.Text += fmt.Sprintf("\nmore than %d runs: their median, and a band from the 25th to the 75th percentile", traceRunsDrawn)
	}
	if lo == hi { // one constant value: give the axis a range to draw
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
		p.Y.Min, p.Y.Max = lo-d, hi+d
	}
	path := filepath.Join(outDir, fmt.Sprintf("%s_trace_%s.png", env, key))
	return path, savePanels(path, []*plot.Plot{p}, &leg, 10*vg.Inch, 4.5*vg.Inch)
}

// quartileBand aligns the lines by point index, a line past its last
// point held there, and returns the median line (median x and y at each
// index) and the polygon between the 25th and the 75th percentile of y,
// drawn at the median x.
func quartileBand(lines []plotter.XYs) (med, band plotter.XYs) {
	n := 0
	for _, l := range lines {
		n = max(n, len(l))
	}
	var lo []plotter.XY
	for k := 0; k < n; k++ {
		xs, ys := make([]float64, len(lines)), make([]float64, len(lines))
		for r, l := range lines {
			pt := l[min(k, len(l)-1)]
			xs[r], ys[r] = pt.X, pt.Y
		}
		_, mx, _ := Quartiles(xs)
		q1, my, q3 := Quartiles(ys)
		med = append(med, plotter.XY{X: mx, Y: my})
		band = append(band, plotter.XY{X: mx, Y: q3})
		lo = append(lo, plotter.XY{X: mx, Y: q1})
	}
	for k := len(lo) - 1; k >= 0; k-- {
		band = append(band, lo[k])
	}
	return med, band
}

// traceLines returns each controller's runs of env as (frames, value of
// key) lines, and the smallest and largest value drawn; see TraceFigure.
func (s *Set) traceLines(env, key string) (byCtrl map[string][]plotter.XYs, lo, hi float64) {
	byCtrl = map[string][]plotter.XYs{}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range s.Runs {
		if r.Env != env {
			continue
		}
		vals, ok := r.Hyper[key]
		if !ok {
			v, err := configValue(r.Dir, key)
			if err != nil {
				s.Problems = append(s.Problems, fmt.Sprintf("%s: trace of %s: %v", r.Dir, key, err))
				continue
			}
			vals = make([]float64, len(r.Train))
			for k := range vals {
				vals[k] = v
			}
		}
		pts := make(plotter.XYs, 0, len(r.Train))
		for k, row := range r.Train {
			if v := vals[k]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				pts = append(pts, plotter.XY{X: row.Frames, Y: v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if len(pts) > 0 {
			byCtrl[r.Controller] = append(byCtrl[r.Controller], pts)
		}
	}
	return byCtrl, lo, hi
}

// configValue is the value of hyperparameter key in the config.toml of the
// run folder dir: the value the run held when train.csv does not log it.
func configValue(dir, key string) (float64, error) {
	cfg, err := configs.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		return 0, err
	}
	return cfg.PPO.Get(key)
}
