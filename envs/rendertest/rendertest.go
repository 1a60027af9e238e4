// Package rendertest checks environment renderers in tests: frames are not
// blank and change while the bodies move.
package rendertest

import (
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
)

// Thresholds of CheckFrames.
const (
	MinVariance = 50   // grey-level variance of a frame with content
	MinDiff     = 0.05 // mean absolute channel difference of frames that moved
)

// Stats returns the variance of the grey levels of img and the mean
// absolute difference per channel from prev (0 without prev).
func Stats(img, prev *image.RGBA) (variance, diff float64) {
	var s, ss float64
	n := 0
	for i := 0; i < len(img.Pix); i += 4 {
		g := (float64(img.Pix[i]) + float64(img.Pix[i+1]) + float64(img.Pix[i+2])) / 3
		s += g
		ss += g * g
		n++
		if prev != nil {
			for c := 0; c < 3; c++ {
				diff += math.Abs(float64(img.Pix[i+c]) - float64(prev.Pix[i+c]))
			}
		}
	}
	m := s / float64(n)
	return ss/float64(n) - m*m, diff / float64(3*n)
}

// Open makes environment name, resets it with seed and makes its w×h
// renderer; both are closed when the test ends.
func Open(t *testing.T, name string, seed int64, w, h int) (envs.Env, envs.Renderer) {
	t.Helper()
	env, err := envs.Make(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	if _, err := env.Reset(seed); err != nil {
		t.Fatal(err)
	}
	r, err := envs.NewRenderer(env, w, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return env, r
}

// CheckFrames renders steps steps of env name (reset with seed 1, seeded
// random actions) at w×h. Every frame must have grey-level variance above
// MinVariance, and at least 5/6 of consecutive pairs must differ by more
// than MinDiff. With HYPERCTL_RENDER_DIR set, the last frame is kept there
// as NAME.png.
func CheckFrames(t *testing.T, name string, w, h, steps int) {
	t.Helper()
	env, r := Open(t, name, 1, w, h)
	rng := rand.New(rand.NewPCG(1, 2))
	spec := env.Spec()
	act := make([]float64, spec.Action.Dim())
	var prev *image.RGBA
	moving := 0
	for k := 0; k < steps; k++ {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		if err := r.Render(img); err != nil {
			t.Fatal(err)
		}
		v, d := Stats(img, prev)
		if v < MinVariance {
			t.Fatalf("%s frame %d: grey variance %.1f, want > %v (blank frame)", name, k, v, MinVariance)
		}
		if d > MinDiff {
			moving++
		}
		prev = img
		for j := range act {
			lo, hi := spec.Action.Low[j], spec.Action.High[j]
			act[j] = lo + (hi-lo)*rng.Float64()
		}
		tr, err := env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Terminated || tr.Truncated {
			if _, err := env.Reset(envs.NoSeed); err != nil {
				t.Fatal(err)
			}
		}
	}
	if moving < (steps-1)*5/6 {
		t.Fatalf("%s: only %d of %d consecutive frame pairs differ", name, moving, steps-1)
	}
	if dir := os.Getenv("HYPERCTL_RENDER_DIR"); dir != "" {
		f, err := os.Create(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, prev); err != nil {
			t.Fatal(err)
		}
	}
}
