package kalman

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteCSV writes the mean cumulative regret and its standard error over
// seeds at every round: columns t, method, mean, se, seeds.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"t", "method", "mean_cum_regret", "se", "seeds"}); err != nil {
		return err
	}
	for _, c := range r.Curves {
		for t := range r.Config.N {
			m, se := c.Mean(t)
			rec := []string{strconv.Itoa(t + 1), c.Name, fmtF(m), fmtF(se), strconv.Itoa(len(c.Runs))}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }

// Plot draws mean cumulative regret against t for every method, with ±1
// standard error bands, and saves it (the format follows the extension,
// e.g. .png).
func (r *Result) Plot(path, title string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "round t"
	p.Y.Label.Text = "cumulative regret R_t (eq. 7), mean over seeds"
	p.Legend.Top, p.Legend.Left = true, true
	for i, c := range r.Curves {
		n := r.Config.N
		mean := make(plotter.XYs, n)
		band := make(plotter.XYs, 0, 2*n)
		for t := range n {
			m, _ := c.Mean(t)
			mean[t] = plotter.XY{X: float64(t + 1), Y: m}
		}
		for t := range n {
			m, se := c.Mean(t)
			band = append(band, plotter.XY{X: float64(t + 1), Y: m + se})
		}
		for t := n - 1; t >= 0; t-- {
			m, se := c.Mean(t)
			band = append(band, plotter.XY{X: float64(t + 1), Y: m - se})
		}
		col := plotutil.Color(i)
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return fmt.Errorf("kalman: plot: %w", err)
		}
		rgba := toNRGBA(col, 60)
		poly.Color = rgba
		poly.LineStyle.Width = 0
		l, err := plotter.NewLine(mean)
		if err != nil {
			return fmt.Errorf("kalman: plot: %w", err)
		}
		l.Color = col
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(i)
		p.Add(poly, l)
		p.Legend.Add(c.Name, l)
	}
	if err := p.Save(9*vg.Inch, 5.5*vg.Inch, path); err != nil {
		return fmt.Errorf("kalman: plot: %w", err)
	}
	return nil
}

// WriteSweepCSV writes sweep points: columns method, d, s, mean, se.
func WriteSweepCSV(w io.Writer, pts []SweepPoint) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"method", "d", "s", "mean_final_regret", "se"}); err != nil {
		return err
	}
	for _, p := range pts {
		if err := cw.Write([]string{p.Name, strconv.Itoa(p.D), strconv.Itoa(p.S), fmtF(p.Final), fmtF(p.SE)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SweepTable formats sweep points as a Markdown table: one row per method
// and s, one column per d.
func SweepTable(pts []SweepPoint) string {
	dset := map[int]bool{}
	type rk struct {
		name string
		s    int
	}
	rows := map[rk]map[int]SweepPoint{}
	var order []rk
	for _, p := range pts {
		dset[p.D] = true
		k := rk{p.Name, p.S}
		if rows[k] == nil {
			rows[k] = map[int]SweepPoint{}
			order = append(order, k)
		}
		rows[k][p.D] = p
	}
	ds := make([]int, 0, len(dset))
	for d := range dset {
		ds = append(ds, d)
	}
	sort.Ints(ds)
	s := "| method | s |"
	sep := "|---|---:|"
	for _, d := range ds {
		s += fmt.Sprintf(" d=%d |", d)
		sep += "---:|"
	}
	s += "\n" + sep + "\n"
	for _, k := range order {
		sv := "–"
		if k.s > 0 {
			sv = strconv.Itoa(k.s)
		}
		s += fmt.Sprintf("| %s | %s |", k.name, sv)
		for _, d := range ds {
			if p, ok := rows[k][d]; ok {
				s += fmt.Sprintf(" %.1f ± %.1f |", p.Final, p.SE)
			} else {
				s += " |"
			}
		}
		s += "\n"
	}
	return s
}

// PlotSweep draws final regret against d (log axis) with one line per
// controller and s, and one per reference.
func PlotSweep(path, title string, pts []SweepPoint) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "d (grid values per hyperparameter, log scale)"
	p.Y.Label.Text = "final cumulative regret R_n, mean over seeds"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(40)
	type key struct {
		name string
		s    int
	}
	lines := map[key]plotter.XYs{}
	var order []key
	for _, pt := range pts {
		k := key{pt.Name, pt.S}
		if _, ok := lines[k]; !ok {
			order = append(order, k)
		}
		lines[k] = append(lines[k], plotter.XY{X: float64(pt.D), Y: pt.Final})
	}
	for i, k := range order {
		xy := lines[k]
		sort.Slice(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
		l, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("kalman: sweep plot: %w", err)
		}
		col := plotutil.Color(i)
		l.Color, sc.Color = col, col
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(i)
		sc.Shape = draw.CircleGlyph{}
		p.Add(l, sc)
		name := k.name
		if k.s > 0 {
			name = fmt.Sprintf("%s s=%d", k.name, k.s)
		}
		p.Legend.Add(name, l, sc)
	}
	if err := p.Save(9*vg.Inch, 5.5*vg.Inch, path); err != nil {
		return fmt.Errorf("kalman: sweep plot: %w", err)
	}
	return nil
}

// toNRGBA returns c with alpha a (0–255), for translucent bands.
func toNRGBA(c color.Color, a uint8) color.NRGBA {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}
