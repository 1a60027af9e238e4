package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// XAxis selects the time axis of the Figure 1 style plots.
type XAxis int

const (
	// ControllerTime is cumulative time spent in the controller's decisions,
	// the paper's Figure 1 axis ("only the wall clock time elapsed during the
	// hyperparameter search"). Runs without a controller have none and are
	// left out of this figure.
	ControllerTime XAxis = iota
	// WallTime is cumulative total wall time of the run.
	WallTime
	// Frames is the number of frames trained on so far, on a linear axis:
	// not one of the paper's figures, it shows the runs at equal experience
	// (controllers that pick larger batches see more frames per iteration).
	Frames
)

// curve is a median curve over seeds: x and y per iteration index.
type curve struct{ xs, ys []float64 }

// medianCurve aligns runs by row index and takes the median x and y over the
// runs that reached each index.
func medianCurve(n int, get func(run, row int) (x, y float64, ok bool), runs int) curve {
	var c curve
	for k := 0; k < n; k++ {
		var xs, ys []float64
		for r := 0; r < runs; r++ {
			if x, y, ok := get(r, k); ok {
				xs = append(xs, x)
				ys = append(ys, y)
			}
		}
		if len(xs) == 0 {
			continue
		}
		_, mx, _ := Quartiles(xs)
		_, my, _ := Quartiles(ys)
		c.xs = append(c.xs, mx)
		c.ys = append(c.ys, my)
	}
	return c
}

// Figure1 writes DIR/<env>_fig1_controller_time.png or
// <env>_fig1_wall_time.png: median training reward (left) and median
// evaluation return (right) against time on a log axis, one line per
// controller; with the Frames axis, <env>_fig3_frames.png against frames on a
// linear axis. It returns the file written.
func (s *Set) Figure1(env, outDir string, axis XAxis) (string, error) {
	byCtrl := map[string][]*Run{}
	for _, r := range s.Runs {
		if r.Env == env {
			byCtrl[r.Controller] = append(byCtrl[r.Controller], r)
		}
	}
	label := "controller time (s, log scale)"
	name := "fig1_controller_time"
	switch axis {
	case WallTime:
		label, name = "wall-clock time (s, log scale)", "fig1_wall_time"
	case Frames:
		label, name = "frames trained", "fig3_frames"
	}
	left, right := plot.New(), plot.New()
	left.Title.Text = env + ": median training reward"
	right.Title.Text = env + ": median evaluation return"
	for _, p := range []*plot.Plot{left, right} {
		p.X.Label.Text = label
		if axis != Frames {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: 1}
		}
		p.Legend.Top = true
		p.Legend.Left = true
	}
	left.Y.Label.Text = "training reward"
	right.Y.Label.Text = "evaluation return"
	ctrls := make([]string, 0, len(byCtrl))
	for c := range byCtrl {
		ctrls = append(ctrls, c)
	}
	sort.Strings(ctrls)
	switch s.evalCount(env) {
	case 0:
		right.Title.Text += "\nno evaluations yet (eval_every = 0, or none reached)"
	case 1:
		right.Title.Text += "\none evaluation per run, after its last iteration\n(the runs are shorter than eval_every): points, not curves"
	}
	plotted := 0
	for i, c := range ctrls {
		runs := byCtrl[c]
		maxTrain, maxEval := 0, 0
		for _, r := range runs {
			maxTrain = max(maxTrain, len(r.Train))
			maxEval = max(maxEval, len(r.Eval))
		}
		tx := func(wall, ctrl, frames float64) float64 {
			switch axis {
			case WallTime:
				return wall
			case Frames:
				return frames
			}
			return ctrl
		}
		tc := medianCurve(maxTrain, func(r, k int) (float64, float64, bool) {
			if k >= len(runs[r].Train) {
				return 0, 0, false
			}
			row := runs[r].Train[k]
			return tx(row.Wall, row.Ctrl, row.Frames), row.Reward, true
		}, len(runs))
		ec := medianCurve(maxEval, func(r, k int) (float64, float64, bool) {
			if k >= len(runs[r].Eval) {
				return 0, 0, false
			}
			row := runs[r].Eval[k]
			return tx(row.Wall, row.Ctrl, row.Frames), row.Return, true
		}, len(runs))
		for side, cv := range []curve{tc, ec} {
			pts := make(plotter.XYs, 0, len(cv.xs))
			for k := range cv.xs {
				if cv.xs[k] > 0 && !math.IsNaN(cv.ys[k]) && !math.IsInf(cv.ys[k], 0) {
					pts = append(pts, plotter.XY{X: cv.xs[k], Y: cv.ys[k]})
				}
			}
			if len(pts) < 1 {
				continue
			}
			p := left
			if side == 1 {
				p = right
			}
			if len(pts) == 1 {
				// A single point draws no line: mark it.
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return "", fmt.Errorf("figure 1 %s/%s: %w", env, c, err)
				}
				sc.Color = plotutil.Color(i)
				sc.Shape = plotutil.Shape(i)
				sc.Radius = vg.Points(4)
				p.Add(sc)
				p.Legend.Add(c, sc)
				plotted++
				continue
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return "", fmt.Errorf("figure 1 %s/%s: %w", env, c, err)
			}
			l.Color = plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i)
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(c, l)
			plotted++
		}
	}
	if plotted == 0 {
		return "", nil
	}
	if s.evalCount(env) == 0 {
		// An empty panel keeps the training panel's time range (a log
		// scale cannot draw the empty default range 0..0).
		right.X.Min, right.X.Max = left.X.Min, left.X.Max
		right.Y.Min, right.Y.Max = 0, 1
	}
	if s.evalCount(env) == 1 {
		// Keep single points off the frame and the legend.
		if axis == Frames {
			d := math.Max(right.X.Max-right.X.Min, math.Abs(right.X.Max)) * 0.1
			right.X.Min, right.X.Max = right.X.Min-d, right.X.Max+d
		} else {
			right.X.Min, right.X.Max = right.X.Min/1.5, right.X.Max*1.5
		}
		d := math.Max(right.Y.Max-right.Y.Min, math.Abs(right.Y.Max)*0.05) * 0.5
		right.Y.Min, right.Y.Max = right.Y.Min-d, right.Y.Max+d
		right.Legend.Top, right.Legend.Left = false, false
	}
	path := filepath.Join(outDir, fmt.Sprintf("%s_%s.png", env, name))
	return path, savePanels(path, []*plot.Plot{left, right}, 12*vg.Inch, 4.5*vg.Inch)
}

// Figure2 writes DIR/<env>_fig2_final.png: box plots of the final training
// reward (left) and final evaluation return (right) per controller, over
// finished runs.
func (s *Set) Figure2(env, outDir string) (string, error) {
	byCtrl := map[string][2][]float64{}
	for _, r := range s.Runs {
		if r.Env != env || !r.Finished {
			continue
		}
		v := byCtrl[r.Controller]
		v[0] = append(v[0], r.Train[len(r.Train)-1].Reward)
		if len(r.Eval) > 0 {
			v[1] = append(v[1], r.Eval[len(r.Eval)-1].Return)
		}
		byCtrl[r.Controller] = v
	}
	if len(byCtrl) == 0 {
		return "", nil
	}
	ctrls := make([]string, 0, len(byCtrl))
	for c := range byCtrl {
		ctrls = append(ctrls, c)
	}
	sort.Strings(ctrls)
	var panels []*plot.Plot
	for side, title := range []string{"final training reward", "final evaluation return"} {
		p := plot.New()
		p.Title.Text = env + ": " + title
		p.Y.Label.Text = title
		var names []string
		for i, c := range ctrls {
			vals := byCtrl[c][side]
			names = append(names, c)
			if len(vals) == 0 {
				continue
			}
			b, err := plotter.NewBoxPlot(vg.Points(20), float64(i), plotter.Values(vals))
			if err != nil {
				return "", fmt.Errorf("figure 2 %s/%s: %w", env, c, err)
			}
			b.FillColor = plotutil.Color(i)
			p.Add(b)
		}
		p.NominalX(names...)
		panels = append(panels, p)
	}
	path := filepath.Join(outDir, fmt.Sprintf("%s_fig2_final.png", env))
	return path, savePanels(path, panels, 12*vg.Inch, 4.5*vg.Inch)
}

// savePanels draws plots side by side into one PNG.
func savePanels(path string, plots []*plot.Plot, w, h vg.Length) error {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 2, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return f.Close()
}

// Write produces the full report into outDir: report.md and the PNGs. It
// returns the files written.
func (s *Set) Write(outDir string) ([]string, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("report: output folder %s: %w", outDir, err)
	}
	// The statistics first: a non-finite score stops the report with an
	// error naming the run, before any figure draws it.
	st, err := s.Stats()
	if err != nil {
		return nil, err
	}
	var files []string
	if p, err := st.ProfileFigure(outDir); err != nil {
		return files, err
	} else if p != "" {
		files = append(files, p)
	}
	for _, env := range s.Envs() {
		for _, ax := range []XAxis{ControllerTime, WallTime, Frames} {
			p, err := s.Figure1(env, outDir, ax)
			if err != nil {
				return files, err
			}
			if p != "" {
				files = append(files, p)
			}
		}
		p, err := s.Figure2(env, outDir)
		if err != nil {
			return files, err
		}
		if p != "" {
			files = append(files, p)
		}
	}
	md := filepath.Join(outDir, "report.md")
	f, err := os.Create(md)
	if err != nil {
		return files, fmt.Errorf("report: %w", err)
	}
	if err := s.markdown(f, st); err != nil {
		f.Close()
		return files, err
	}
	fmt.Fprintln(f, "Figures:")
	for _, p := range files {
		fmt.Fprintf(f, "\n![%s](%s)\n", filepath.Base(p), filepath.Base(p))
	}
	if err := f.Close(); err != nil {
		return files, err
	}
	return append(files, md), nil
}
