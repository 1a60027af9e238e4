package progress

import (
	"math"
	"strings"
	"testing"
)

// TestFitLine: the line fits the width it is given, dropping fields in the
// stated order (fitSteps), and keeps the run's position at any width.
func TestFitLine(t *testing.T) {
	iters := Fields{Pos: "it 123/488", Done: 123.0 / 488, ETA: "ETA 12m34s", Aside: "frames 251904", FPS: "1520 f/s",
		Rew: "ep_rew_mean -1234.5", RewN: " (100 ep)", Eval: "eval 2345.6", Reward: "reward/step -1.234"}
	budget := iters
	budget.Pos, budget.Aside, budget.Done = "frames 251904/1000000", "it 123", 0.251904
	for _, c := range []struct {
		name    string
		f       Fields
		width   int
		want    string
		without []string
	}{
		{"wide: everything", iters, 200, "it 123/488 [#####---------------] 25% | ETA 12m34s | frames 251904 | 1520 f/s | ep_rew_mean -1234.5 (100 ep) | eval 2345.6 | reward/step -1.234", nil},
		{"120 columns", iters, 119, "it 123/488 [#####---------------] 25% | ETA 12m34s | frames 251904 | 1520 f/s | ep_rew_mean -1234.5 | eval 2345.6", []string{"reward/step", "(100 ep)"}},
		{"100 columns", iters, 99, "it 123/488 25% | ETA 12m34s | frames 251904 | 1520 f/s | ep_rew_mean -1234.5 | eval 2345.6", []string{"[", "reward/step"}},
		{"80 columns", iters, 79, "it 123/488 25% | ETA 12m34s | frames 251904 | ep_rew_mean -1234.5 | eval 2345.6", []string{"f/s", "["}},
		{"80 columns, frame budget", budget, 79, "frames 251904/1000000 25% | ETA 12m34s | ep_rew_mean -1234.5 | eval 2345.6", []string{"it 123"}},
		{"60 columns", iters, 59, "it 123/488 25% | ETA 12m34s | ep_rew_mean -1234.5", []string{"eval"}},
		{"40 columns", iters, 39, "it 123/488 25% | ETA 12m34s", []string{"ep_rew_mean"}},
		{"20 columns", iters, 19, "it 123/488 25%", []string{"ETA"}},
		{"12 columns", iters, 11, "it 123/488", []string{"%"}},
		{"too narrow for the position", iters, 5, "it 12", nil},
		{"before any progress", Fields{Pos: "it 0/488", Done: math.NaN(), ETA: "ETA -", Aside: "frames 0", FPS: "- f/s", Rew: "ep_rew_mean -", Eval: "eval -", Reward: "reward/step -"}, 79,
			"it 0/488 | ETA - | frames 0 | - f/s | ep_rew_mean - | eval - | reward/step -", nil},
	} {
		got := Fit(c.f, c.width)
		if got != c.want || len([]rune(got)) > c.width {
			t.Errorf("%s: %q (%d columns), want %q", c.name, got, len([]rune(got)), c.want)
		}
		for _, w := range c.without {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", c.name, got, w)
			}
		}
	}
}

// TestStatusLine: every update starts at the line's start (\r) and blanks
// what is left of a longer previous line, within the width; the end is
// one newline.
func TestStatusLine(t *testing.T) {
	var b strings.Builder
	width := 80
	s := &Line{w: &b, width: func() int { return width }}
	long := Fields{Pos: "it 1/9", Done: 0.1, ETA: "ETA 1s", Aside: "frames 100", FPS: "9 f/s", Rew: "ep_rew_mean -5.0", RewN: " (3 ep)", Eval: "eval -", Reward: "reward/step 0.100"}
	s.Show(long)
	first := b.String()
	short := long
	short.Pos, short.RewN = "it 2/9", ""
	width = 30 // the terminal narrowed
	s.Show(short)
	s.End()
	out := b.String()
	if !strings.HasPrefix(first, "\r") || strings.Count(out, "\r") != 2 || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("output %q", out)
	}
	second := strings.TrimSuffix(out[len(first):], "\n")
	if n := len([]rune(second)) - 1; n != 29 {
		t.Fatalf("second update %q: %d columns, want 29 (the narrowed width less one, padded)", second, n)
	}
}
