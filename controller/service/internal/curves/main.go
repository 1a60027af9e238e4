// Command curves summarises the learning curves of
// controller/service/python/examples/ppo_cartpole.py runs: it reads
// DIR/<variant>-seed<N>.csv, writes DIR/curves.png (the mean over seeds of
// the training reward R_t, smoothed over 10 iterations, against frames, per
// variant, with each seed in a thin line) and DIR/curves.md (a table of the
// smoothed mean at regular points and the final value per seed).
//
//	go run ./controller/service/internal/curves DIR
package main

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// window is the smoothing window in iterations.
const window = 10

var fileRE = regexp.MustCompile(`^(.+)-seed(\d+)\.csv$`)

type run struct {
	seed    int
	frames  []float64
	reward  []float64 // R_t
	lr, clp []float64
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: curves DIR")
		os.Exit(2)
	}
	if err := summarise(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "curves:", err)
		os.Exit(1)
	}
}

func readRun(path string, seed int) (run, error) {
	f, err := os.Open(path)
	if err != nil {
		return run{}, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return run{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) < 2 {
		return run{}, fmt.Errorf("%s: no data rows", path)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	for _, c := range []string{"frames", "reward", "lr", "clip"} {
		if _, ok := col[c]; !ok {
			return run{}, fmt.Errorf("%s: no %q column", path, c)
		}
	}
	r := run{seed: seed}
	for i, row := range rows[1:] {
		var v [4]float64
		for k, c := range []string{"frames", "reward", "lr", "clip"} {
			x, err := strconv.ParseFloat(row[col[c]], 64)
			if err != nil {
				return run{}, fmt.Errorf("%s: row %d: %s: %w", path, i+1, c, err)
			}
			v[k] = x
		}
		r.frames, r.reward, r.lr, r.clp = append(r.frames, v[0]), append(r.reward, v[1]), append(r.lr, v[2]), append(r.clp, v[3])
	}
	return r, nil
}

// smooth is the trailing mean over window iterations.
func smooth(x []float64) []float64 {
	out := make([]float64, len(x))
	s := 0.0
	for i, v := range x {
		s += v
		if i >= window {
			s -= x[i-window]
		}
		out[i] = s / float64(min(i+1, window))
	}
	return out
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func summarise(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	runs := map[string][]run{}
	for _, e := range ents {
		m := fileRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		seed, _ := strconv.Atoi(m[2])
		r, err := readRun(filepath.Join(dir, e.Name()), seed)
		if err != nil {
			return err
		}
		runs[m[1]] = append(runs[m[1]], r)
	}
	if len(runs) == 0 {
		return fmt.Errorf("%s: no <variant>-seed<N>.csv files", dir)
	}
	variants := make([]string, 0, len(runs))
	for v := range runs {
		variants = append(variants, v)
		sort.Slice(runs[v], func(i, j int) bool { return runs[v][i].seed < runs[v][j].seed })
	}
	sort.Strings(variants)

	p := plot.New()
	p.Title.Text = "CleanRL-style PPO on CartPole-v1 (Python, PyTorch)"
	p.X.Label.Text = "frames"
	p.Y.Label.Text = fmt.Sprintf("R_t, mean of the last %d iterations", window)
	p.Add(plotter.NewGrid())
	palette := []color.RGBA{{R: 31, G: 119, B: 180, A: 255}, {R: 214, G: 39, B: 40, A: 255}, {R: 44, G: 160, B: 44, A: 255}, {R: 148, G: 103, B: 189, A: 255}}
	var md strings.Builder
	fmt.Fprintf(&md, "R_t smoothed over %d iterations, mean over seeds (min–max over seeds):\n\n", window)
	for vi, v := range variants {
		rs := runs[v]
		n := len(rs[0].reward)
		for _, r := range rs {
			n = min(n, len(r.reward))
		}
		meanCurve := make(plotter.XYs, n)
		sm := make([][]float64, len(rs))
		for k, r := range rs {
			sm[k] = smooth(r.reward[:n])
			thin := make(plotter.XYs, n)
			for i := 0; i < n; i++ {
				thin[i] = plotter.XY{X: r.frames[i], Y: sm[k][i]}
			}
			l, err := plotter.NewLine(thin)
			if err != nil {
				return err
			}
			c := palette[vi%len(palette)]
			l.Color, l.Width = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 80}, vg.Points(0.7)
			p.Add(l)
		}
		for i := 0; i < n; i++ {
			var ys []float64
			for k := range rs {
				ys = append(ys, sm[k][i])
			}
			meanCurve[i] = plotter.XY{X: rs[0].frames[i], Y: mean(ys)}
		}
		l, err := plotter.NewLine(meanCurve)
		if err != nil {
			return err
		}
		l.Color, l.Width = palette[vi%len(palette)], vg.Points(2)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%d seeds)", v, len(rs)), l)
	}
	p.Legend.Top, p.Legend.Left = true, true
	if err := p.Save(10*vg.Inch, 5*vg.Inch, filepath.Join(dir, "curves.png")); err != nil {
		return err
	}

	// Table: rows are checkpoints, columns variants.
	n := math.MaxInt
	for _, v := range variants {
		for _, r := range runs[v] {
			n = min(n, len(r.reward))
		}
	}
	step := max(n/6, 1)
	fmt.Fprintf(&md, "| iteration | frames |")
	for _, v := range variants {
		fmt.Fprintf(&md, " %s |", v)
	}
	fmt.Fprintf(&md, "\n|---|---|")
	for range variants {
		fmt.Fprintf(&md, "---|")
	}
	md.WriteString("\n")
	for i := step - 1; i < n; i += step {
		fmt.Fprintf(&md, "| %d | %.0f |", i, runs[variants[0]][0].frames[i])
		for _, v := range variants {
			var ys []float64
			for _, r := range runs[v] {
				ys = append(ys, smooth(r.reward[:n])[i])
			}
			lo, hi := ys[0], ys[0]
			for _, y := range ys {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
			fmt.Fprintf(&md, " %.1f (%.1f–%.1f) |", mean(ys), lo, hi)
		}
		md.WriteString("\n")
	}
	fmt.Fprintf(&md, "\nFinal R_t (mean of the last %d iterations) per seed, and the lr and clip in force at the end:\n\n| variant | seed | final R_t | lr | clip |\n|---|---|---|---|---|\n", window)
	for _, v := range variants {
		for _, r := range runs[v] {
			k := len(r.reward)
			fmt.Fprintf(&md, "| %s | %d | %.1f | %.3g | %.3g |\n", v, r.seed, mean(r.reward[max(k-window, 0):]), r.lr[k-1], r.clp[k-1])
		}
	}
	return os.WriteFile(filepath.Join(dir, "curves.md"), []byte(md.String()), 0o644)
}
