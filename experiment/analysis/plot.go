package analysis

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/hyperctl/hyperctl/experiment/matrix"
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

// spendsNoControllerTime says whether every run of a row spends no
// controller time (PPO with fixed hyperparameters, a best-of-N pick of such
// runs): on the log controller-time axis, which has no 0, the row is drawn
// as its final medians.
func spendsNoControllerTime(runs []*Run) bool {
	for _, r := range runs {
		for _, row := range r.Train {
			if row.Ctrl != 0 {
				return false
			}
		}
	}
	return true
}

// curve is a median curve over seeds: x and y per iteration index.
type curve struct{ xs, ys []float64 }

// medianCurve aligns runs by row index and takes the median x and y over
// the runs at each index, a run past its last row held at that row. Over
// the runs that reached an index alone, the curve's tail was the median of
// the few runs with the most rows (a controller's runs with small batches
// run more iterations on a frame budget): in the control study's matrix,
// HyperController's HalfCheetah runs had 249 to 771 rows, and its "median"
// past row 708 was one run's.
func medianCurve(n int, get func(run, row int) (x, y float64, ok bool), runs int) curve {
	var c curve
	type point struct {
		x, y float64
		ok   bool
	}
	last := make([]point, runs)
	for k := 0; k < n; k++ {
		var xs, ys []float64
		for r := 0; r < runs; r++ {
			if x, y, ok := get(r, k); ok {
				last[r] = point{x, y, true}
			}
			if last[r].ok {
				xs = append(xs, last[r].x)
				ys = append(ys, last[r].y)
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
	panels, leg, name, err := s.figure1(env, axis)
	if panels == nil || err != nil {
		return "", err
	}
	path := filepath.Join(outDir, fmt.Sprintf("%s_%s.png", env, name))
	return path, savePanels(path, panels, &leg, 14*vg.Inch, 4.5*vg.Inch)
}

// figure1 draws Figure1's panels (nil when no run has a point to draw),
// its legend and the name of its file.
func (s *Set) figure1(env string, axis XAxis) ([]*plot.Plot, plot.Legend, string, error) {
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
		p.X.Tick.Marker = linearTicks{}
		p.Y.Tick.Marker = linearTicks{}
		if axis != Frames {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = logTicks{}
		}
	}
	leg := newSideLegend()
	inLegend := map[string]bool{}
	addLegend := func(name string, th plot.Thumbnailer) {
		if !inLegend[name] {
			inLegend[name] = true
			leg.Add(name, th)
		}
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
	// A row that spends no controller time (fixed): on the controller-time
	// axis (log scale, no 0) its final medians are drawn as horizontal
	// lines.
	noCtrlFinal := map[string]*[2][]float64{}
	for i, c := range ctrls {
		runs := byCtrl[c]
		if axis == ControllerTime && spendsNoControllerTime(runs) {
			final := &[2][]float64{}
			for _, r := range runs {
				if !r.Finished {
					continue
				}
				final[0] = append(final[0], r.Train[len(r.Train)-1].Reward)
				if len(r.Eval) > 0 {
					final[1] = append(final[1], r.Eval[len(r.Eval)-1].Return)
				}
			}
			noCtrlFinal[c] = final
			continue
		}
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
					return nil, leg, "", fmt.Errorf("figure 1 %s/%s: %w", env, c, err)
				}
				sc.Color = plotutil.Color(i)
				sc.Shape = plotutil.Shape(i)
				sc.Radius = vg.Points(4)
				p.Add(sc)
				addLegend(c, sc)
				plotted++
				continue
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, leg, "", fmt.Errorf("figure 1 %s/%s: %w", env, c, err)
			}
			l.Color = plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i)
			l.Width = vg.Points(1.5)
			p.Add(l)
			addLegend(c, l)
			plotted++
		}
	}
	if plotted == 0 {
		return nil, leg, "", nil
	}
	for i, c := range ctrls {
		final := noCtrlFinal[c]
		if final == nil {
			continue
		}
		for side, vals := range final {
			if len(vals) == 0 {
				continue
			}
			p := left
			if side == 1 {
				p = right
			}
			_, med, _ := Quartiles(vals)
			f := hline(p, med, plotutil.Color(i), []vg.Length{vg.Points(6), vg.Points(3)})
			addLegend(fmt.Sprintf("%s: final median of %s (no controller time)", c, matrix.Plural(len(vals), "run", "runs")), f)
		}
	}
	if pub, ok := s.Published[env]; ok {
		addLegend(pub.label(), publishedLine(right, pub))
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
	}
	for _, p := range []*plot.Plot{left, right} {
		widenPoint(p, axis != Frames)
	}
	sameForm(&left.X, &right.X)
	return []*plot.Plot{left, right}, leg, name, nil
}

// hline draws a horizontal line at y across p, in c with dashes, and
// returns it for the legend. A function has no data range: the axis is
// widened to show it, at least 4 % of the range off the frame (a dashed
// line on the frame is lost in it).
func hline(p *plot.Plot, y float64, c color.Color, dashes []vg.Length) *plotter.Function {
	f := plotter.NewFunction(func(float64) float64 { return y })
	f.Color = c
	f.Dashes = dashes
	f.Width = vg.Points(1.5)
	p.Add(f)
	lo, hi := math.Min(p.Y.Min, y), math.Max(p.Y.Max, y)
	pad := 0.04 * math.Max(hi-lo, math.Abs(y)*0.01)
	// At the ends of the float range the pad would overflow: keep the axis
	// finite.
	p.Y.Min = math.Max(math.Min(lo, y-pad), -math.MaxFloat64)
	p.Y.Max = math.Min(math.Max(hi, y+pad), math.MaxFloat64)
	return f
}

// widenPoint gives a range that holds one value (every point at the same
// x, or y) a width around it: ×/1.5 on a log x axis, ±10 % (at least 1)
// on a linear one, ±5 % (at least 0.5) in y. The plotting library would
// widen it by ±1, which a log axis cannot draw below 1.
func widenPoint(p *plot.Plot, logX bool) {
	if p.X.Min == p.X.Max {
		if logX && p.X.Min > 0 {
			p.X.Min, p.X.Max = p.X.Min/1.5, p.X.Max*1.5
		} else {
			d := math.Max(math.Abs(p.X.Max)*0.1, 1)
			p.X.Min, p.X.Max = p.X.Min-d, p.X.Max+d
		}
	}
	if p.Y.Min == p.Y.Max {
		d := math.Max(math.Abs(p.Y.Max)*0.05, 0.5)
		p.Y.Min, p.Y.Max = p.Y.Min-d, p.Y.Max+d
	}
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
		p.Y.Tick.Marker = linearTicks{}
		var names []string
		for i, c := range ctrls {
			vals := byCtrl[c][side]
			names = append(names, fmt.Sprintf("%s (n = %d)", c, len(vals)))
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
		p.X.Label.Text = "n: the runs behind each box"
		p.X.Tick.Label.Rotation = math.Pi / 9
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
		if pub, ok := s.Published[env]; ok && side == 1 {
			publishedLine(p, pub)
			p.Title.Text += "\ndotted: the published " + fmtPublished(pub.Score) + " (see the report)"
		}
		panels = append(panels, p)
	}
	path := filepath.Join(outDir, fmt.Sprintf("%s_fig2_final.png", env))
	return path, savePanels(path, panels, nil, 12*vg.Inch, 5*vg.Inch)
}

// newSideLegend is a legend drawn beside the axes (savePanels), where it
// covers no curve.
func newSideLegend() plot.Legend {
	leg := plot.NewLegend()
	leg.Left, leg.Top = true, true
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.ThumbnailWidth = vg.Points(28)
	leg.Padding = vg.Points(4)
	return leg
}

// savePanels draws plots side by side into one PNG, with leg (when not
// nil) right of them, its top level with the axes'.
func savePanels(path string, plots []*plot.Plot, leg *plot.Legend, w, h vg.Length) error {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	pad := vg.Millimeter * 2
	panels := dc
	if leg != nil {
		r := leg.Rectangle(dc)
		legW := r.Max.X - r.Min.X
		panels = draw.Crop(dc, 0, -(legW + 3*pad), 0, 0)
		top := plots[0].Title.TextStyle.Rectangle(plots[0].Title.Text).Size().Y
		leg.Draw(draw.Crop(dc, w-legW-2*pad, -pad, pad, -2*pad-top))
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 4, PadY: pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, panels)
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

// logTicks labels a log axis with plain numbers (0.001, 20, 5000): every
// power of ten in range; over fewer than two decades, 2 and 5 times them
// too, and over two to three, 3 times them (2 and 5 made 0.00005 and
// 0.0001 run into each other on a half-width panel); over less than one
// decade, every multiple of the power of ten below it, or, with fewer than
// two of those, the range's ends. Of those, a label is kept only where it
// has room: powers of ten first, then 5, 2, 3 and the other multiples, each
// kept when its distance to every kept label, as a fraction of the axis,
// is at least logTickRoom per character of the two labels (over 0.000004
// to 0.00004, 0.000006 beside 0.000005 ran into it). The other multiples
// are unlabelled minor ticks. gonum's LogTicks labels powers of ten alone,
// in exponent form (1e+01), so a range within one decade had no label.
type logTicks struct{}

// logTickRoom is the width of a label's character as a fraction of a
// half-width panel's axis (14-inch figures of two panels and a legend).
const logTickRoom = 0.015

// logTickOrder is the order in which multiples of a power of ten get a
// label where labels compete for room.
var logTickOrder = []int{1, 5, 2, 3, 4, 6, 7, 8, 9}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) {
		return nil
	}
	decades := math.Log10(max / min)
	labelled := func(m int) bool {
		switch {
		case decades < 1:
			return true
		case decades < 2:
			return m == 1 || m == 2 || m == 5
		case decades < 3:
			return m == 1 || m == 3
		}
		return m == 1
	}
	var ticks []plot.Tick
	var mult []int // mult[i]: the multiple of a power of ten that ticks[i] is
	for e := int(math.Floor(math.Log10(min))); e <= int(math.Ceil(math.Log10(max))); e++ {
		for m := 1; m <= 9; m++ {
			v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e), 64) // exact decimal
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			mult = append(mult, m)
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	var kept []int // indices into ticks of the labels kept so far
	for _, m := range logTickOrder {
		if !labelled(m) {
			continue
		}
		for i, t := range ticks {
			if mult[i] != m {
				continue
			}
			label := fmtTick(t.Value)
			room := true
			for _, k := range kept {
				gap := math.Abs(math.Log10(t.Value/ticks[k].Value)) / math.Max(decades, 1e-12)
				if m != 1 && gap < logTickRoom*float64(len(label)+len(ticks[k].Label))/2 {
					room = false
					break
				}
			}
			if room {
				ticks[i].Label = label
				kept = append(kept, i)
			}
		}
	}
	n := 0
	for _, t := range ticks {
		if t.Label != "" {
			n++
		}
	}
	if n < 2 { // a narrow range: label its ends, rounded inward
		for _, end := range []struct {
			v     float64
			round func(float64) float64
		}{{min, math.Ceil}, {max, math.Floor}} {
			for digits := 2; digits <= 15; digits++ {
				e := int(math.Floor(math.Log10(end.v))) - digits + 1
				r, _ := strconv.ParseFloat(fmt.Sprintf("%.0fe%d", end.round(end.v/math.Pow10(e)), e), 64)
				if r >= min && r <= max {
					ticks = append(ticks, plot.Tick{Value: r, Label: fmtTick(r)})
					break
				}
			}
		}
	}
	return oneForm(ticks)
}

// oneForm writes every label of an axis's ticks in one form: in exponent
// form (1e-5, 5e-4) when any of them is below 1e-4 or at least 1e9 in
// size (a label of more than four decimals or ten digits), so that an axis
// never reads 0.000001 beside 1e-07; as decimals otherwise.
func oneForm(ticks []plot.Tick) []plot.Tick {
	exp := false
	for _, t := range ticks {
		if a := math.Abs(t.Value); t.Label != "" && a != 0 && (a < 1e-4 || a >= 1e9) {
			exp = true
		}
	}
	if !exp {
		return ticks
	}
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = expLabel(t)
		}
	}
	return ticks
}

// sameForm makes the axes, one quantity on panels side by side (time on
// both panels of Figure 1), label their ticks in one form: in exponent
// form on every one when oneForm puts any of them in it, so that a figure
// never reads 1e-5 on one panel and 0.0001 on the other. It reads each
// axis's range as it is now: call it once the ranges are set.
func sameForm(axes ...*plot.Axis) {
	exp := false
	for _, a := range axes {
		for _, t := range a.Tick.Marker.Ticks(a.Min, a.Max) {
			exp = exp || strings.Contains(t.Label, "e")
		}
	}
	if exp {
		for _, a := range axes {
			a.Tick.Marker = expTicks{a.Tick.Marker}
		}
	}
}

// expTicks are the ticks of its Ticker with every label in exponent form
// (sameForm).
type expTicks struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (e expTicks) Ticks(min, max float64) []plot.Tick {
	ticks := e.Ticker.Ticks(min, max)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = expLabel(t)
		}
	}
	return ticks
}

// expLabel is t's label in exponent form: of the number the label states
// (0.0006 is 6e-4 where the tick's value is 6.000000000000001e-4), or of
// its value when the label is not a number.
func expLabel(t plot.Tick) string {
	v, err := strconv.ParseFloat(t.Label, 64)
	if err != nil {
		v = t.Value
	}
	// A tick is a multiple of a round step (2.5 × 10^n at most three
	// significant digits); far from 1 that product carries float noise in
	// the last digits (5.0000000000000002e307), which 12 digits drop.
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return expForm(v)
}

// expForm is v in exponent form, without a plus sign or leading zeros in
// the exponent: 1e-7, 2.5e9.
func expForm(v float64) string {
	if v == 0 {
		return "0"
	}
	m, e, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
	n, _ := strconv.Atoi(e)
	return fmt.Sprintf("%se%d", m, n)
}

// linearTicks label a linear axis at the multiples of a round step (1,
// 2, 2.5 or 5 times a power of ten, about five labels over the range),
// with minor ticks between, each label with the fewest decimals that state
// its value, without trailing zeros. gonum's default ticks put labels at
// offsets of the step (-0.25, 0.75, 1.75), labelled every tick with the
// step's precision plus two digits (0.00, 2500.00) and rounded (-1.23 and
// -1.17 both as -1.2).
type linearTicks struct{}

// linearStep is the step of linearTicks over a range of width w > 0, and
// how many minor intervals divide it.
func linearStep(w float64) (step float64, minors int) {
	raw := w / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []struct {
		f float64
		n int
	}{{1, 5}, {2, 4}, {2.5, 5}, {5, 5}, {10, 5}} {
		if m.f*mag >= raw*(1-1e-9) {
			return m.f * mag, m.n
		}
	}
	return 10 * mag, 5
}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	step, minors := linearStep(max - min)
	minor := step / float64(minors)
	var ticks []plot.Tick
	first := math.Ceil(min/minor - 1e-9)
	for k := first; k*minor <= max*(1+1e-12)+1e-12*math.Abs(max); k++ {
		v := k * minor
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		t := plot.Tick{Value: v}
		if math.Mod(math.Abs(k), float64(minors)) == 0 {
			t.Label = "x" // labelled below
		}
		ticks = append(ticks, t)
	}
	prec := 0
	for ; prec < 15; prec++ {
		exact := true
		for _, t := range ticks {
			if t.Label == "" {
				continue
			}
			v, err := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'f', prec, 64), 64)
			if err != nil || math.Abs(v-t.Value) > 1e-9*math.Max(math.Abs(t.Value), max-min) {
				exact = false
				break
			}
		}
		if exact {
			break
		}
	}
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = trimZeros(strconv.FormatFloat(t.Value, 'f', prec, 64))
		}
	}
	return oneForm(ticks)
}

// trimZeros drops the trailing zeros of a decimal label's fraction, and
// the point when nothing follows it ("5000.00" is "5000", "0.50" is
// "0.5"); a label in exponent form, or without a point, is kept.
func trimZeros(label string) string {
	if !strings.Contains(label, ".") || strings.ContainsAny(label, "eE") {
		return label
	}
	label = strings.TrimRight(label, "0")
	label = strings.TrimSuffix(label, ".")
	if label == "-0" {
		label = "0"
	}
	return label
}

// fmtTick formats a tick value as a plain number, in exponent form only
// outside 1e-6 to 1e9.
func fmtTick(v float64) string {
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e9) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
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
	var files, leftOut []string
	if p, err := st.ProfileFigure(outDir); err != nil {
		return files, err
	} else if p != "" {
		files = append(files, p)
	} else {
		leftOut = append(leftOut, fmt.Sprintf("%s: no normalised scores (see Normalisation and bootstrap; a normalisation needs finished `%s` runs)", ProfileFile, st.Reference))
	}
	for _, env := range s.Envs() {
		for _, ax := range []XAxis{ControllerTime, WallTime, Frames} {
			p, err := s.Figure1(env, outDir, ax)
			if err != nil {
				return files, err
			}
			switch {
			case p != "":
				files = append(files, p)
			case ax == ControllerTime:
				leftOut = append(leftOut, fmt.Sprintf("%s's controller-time figure: no run spends controller time (a log axis has no 0)", env))
			default:
				leftOut = append(leftOut, fmt.Sprintf("%s's %s figure: no run has a row with a positive time or frame count", env, [...]string{"", "wall-time", "frames"}[ax]))
			}
		}
		p, err := s.Figure2(env, outDir)
		if err != nil {
			return files, err
		}
		if p != "" {
			files = append(files, p)
		} else {
			leftOut = append(leftOut, fmt.Sprintf("%s's box plots: no finished run", env))
		}
		for _, key := range s.Traces {
			p, err := s.TraceFigure(env, key, outDir)
			if err != nil {
				return files, err
			}
			if p != "" {
				files = append(files, p)
			} else {
				leftOut = append(leftOut, fmt.Sprintf("%s's trace of %s: no run has a value of it (a train.csv column or its config.toml)", env, key))
			}
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
	if len(leftOut) > 0 {
		fmt.Fprintln(f, "\nFigures left out:")
		for _, l := range leftOut {
			fmt.Fprintf(f, "- %s\n", l)
		}
	}
	if err := f.Close(); err != nil {
		return files, err
	}
	return append(files, md), nil
}
