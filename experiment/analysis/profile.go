package analysis

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
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

// ProfileFile is the performance-profile figure's file name.
const ProfileFile = "performance_profile.png"

// ProfileFigure writes outDir/performance_profile.png: per row, the
// fraction of its runs whose normalised score exceeds τ, against τ, with
// the 95 % bootstrap band, as rliable's plot_performance_profiles. The
// legend sits outside the axes and gives each row's number of runs. It
// returns the file written, "" when no row has normalised scores.
func (st *Stats) ProfileFigure(outDir string) (string, error) {
	var rows []string
	for _, r := range st.Rows {
		if _, ok := st.Profile.Rows[r]; ok {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return "", nil
	}
	ref := st.Reference
	p := plot.New()
	p.Title.Text = st.profileTitle()
	p.X.Label.Text = fmt.Sprintf("normalised score τ (per environment: 0 = uniformly random policy's mean return, 1 = %s's IQM)", ref)
	p.Y.Label.Text = "fraction of runs with score > τ"
	p.Y.Min, p.Y.Max = 0, 1
	p.X.Min, p.X.Max = st.Profile.Tau[0], st.Profile.Tau[len(st.Profile.Tau)-1]
	p.X.Tick.Marker = stepTicks{major: tickStep(p.X.Max - p.X.Min)}
	p.Y.Tick.Marker = stepTicks{major: 0.25}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 220}
	grid.Horizontal.Color = color.Gray{Y: 220}
	p.Add(grid)
	for _, x := range []float64{0, 1} {
		if x < p.X.Min || x > p.X.Max {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: 1}})
		if err != nil {
			return "", fmt.Errorf("performance profile: %w", err)
		}
		l.Color = color.Gray{Y: 120}
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(3)}
		p.Add(l)
	}
	leg := plot.NewLegend()
	leg.Left, leg.Top = true, true
	leg.TextStyle.Font.Size = vg.Points(11)
	leg.ThumbnailWidth = vg.Points(28)
	leg.Padding = vg.Points(5)
	colorOf := map[string]int{}
	for i, r := range st.Rows {
		colorOf[r] = i
	}
	var lines []plot.Plotter
	for _, r := range rows {
		pr := st.Profile.Rows[r]
		i := colorOf[r]
		band := make(plotter.XYs, 0, 2*len(st.Profile.Tau))
		line := make(plotter.XYs, 0, len(st.Profile.Tau))
		for t, tau := range st.Profile.Tau {
			band = append(band, plotter.XY{X: tau, Y: pr.Hi[t]})
			line = append(line, plotter.XY{X: tau, Y: pr.Frac[t]})
		}
		for t := len(st.Profile.Tau) - 1; t >= 0; t-- {
			band = append(band, plotter.XY{X: st.Profile.Tau[t], Y: pr.Lo[t]})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return "", fmt.Errorf("performance profile %s: %w", r, err)
		}
		c := color.NRGBAModel.Convert(plotutil.Color(i)).(color.NRGBA)
		c.A = 40
		poly.Color = c
		poly.LineStyle.Width = 0
		p.Add(poly)
		l, err := plotter.NewLine(line)
		if err != nil {
			return "", fmt.Errorf("performance profile %s: %w", r, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = vg.Points(2)
		lines = append(lines, l)
		name := fmt.Sprintf("%s (%s)", r, matrix.Plural(pr.Runs, "run", "runs"))
		if pr.Missing > 0 {
			name = fmt.Sprintf("%s (%s; no runs on %d of %d envs)", r, matrix.Plural(pr.Runs, "run", "runs"), pr.Missing, pr.Envs+pr.Missing)
		}
		leg.Add(name, l)
	}
	p.Add(lines...) // lines over every band

	const w, h = 12 * vg.Inch, 5.5 * vg.Inch
	img := vgimg.New(w, h)
	dc := draw.New(img)
	pad := vg.Millimeter * 4
	legW := leg.Rectangle(dc).Max.X - leg.Rectangle(dc).Min.X
	plotCanvas := draw.Crop(dc, pad, -(legW + 3*pad), pad, -pad)
	p.Draw(plotCanvas)
	// The legend starts level with the top of the axes, right of them.
	legCanvas := draw.Crop(dc, w-legW-2*pad, -pad, pad, -pad-p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y-pad)
	leg.Draw(legCanvas)
	path := filepath.Join(outDir, ProfileFile)
	f, err := os.Create(path)
	if err != nil {
		return "", fmt.Errorf("performance profile: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return "", fmt.Errorf("performance profile %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("performance profile %s: %w", path, err)
	}
	return path, nil
}

// tickStep is the labelled tick spacing for an axis spanning span: about
// 5 to 12 labels.
func tickStep(span float64) float64 {
	for _, step := range []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100} {
		if span/step <= 12 {
			return step
		}
	}
	return math.Pow(10, math.Ceil(math.Log10(span/10)))
}

// stepTicks labels multiples of major and marks five minor ticks between.
type stepTicks struct{ major float64 }

// Ticks implements plot.Ticker.
func (t stepTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	minor := t.major / 5
	for k := math.Ceil(min/minor - 1e-9); k*minor <= max+1e-9*t.major; k++ {
		x := k * minor
		if m := math.Round(k / 5); math.Abs(k-5*m) < 1e-9 {
			v := m * t.major
			if v == 0 {
				v = 0 // not -0
			}
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		} else {
			ticks = append(ticks, plot.Tick{Value: x})
		}
	}
	return ticks
}

// profileTitle is the performance profiles' title: the score, the
// environments and the bootstrap.
func (st *Stats) profileTitle() string {
	return fmt.Sprintf("Performance profiles: %s on %s\n(%s); bands: 95 %% stratified-bootstrap CIs, %d resamples",
		st.Score, matrix.Plural(len(st.NormEnvs), "environment", "environments"), strings.Join(st.NormEnvs, ", "), st.Bootstrap.Resamples)
}
