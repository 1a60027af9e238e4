package mujoco_test

import (
	"image"
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/mujoco"
	"github.com/hyperctl/hyperctl/envs/rendertest"
)

// TestRenderFramesMove renders 30 steps of each MuJoCo task with random
// actions through MuJoCo's offscreen renderer on OSMesa: frames have
// content and change as the bodies move.
func TestRenderFramesMove(t *testing.T) {
	for _, name := range []string{"halfcheetah", "inverteddoublependulum", "pusher", "reacher",
		"hopper", "walker2d", "swimmer", "invertedpendulum", "ant", "humanoid"} {
		t.Run(name, func(t *testing.T) { rendertest.CheckFrames(t, name, 160, 120, 30) })
	}
}

// minFloorEdges is the edge density (see edgeDensity) above which the
// bottom of a frame shows the checker floor: it measured 0.91-0.92 on the
// floor at 160x120, and 0.05 over the void past the old floor's end.
const minFloorEdges = 0.4

func TestRendererRejectsWrongSize(t *testing.T) {
	env, err := envs.Make("reacher")
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.Reset(0); err != nil {
		t.Fatal(err)
	}
	r, err := envs.NewRenderer(env, 64, 48)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Render(image.NewRGBA(image.Rect(0, 0, 32, 48))); err == nil {
		t.Fatal("a 32x48 image was accepted by a 64x48 renderer")
	}
	if _, err := envs.NewRenderer(env, 63, 48); err == nil {
		t.Fatal("an odd width was accepted")
	}
	if err := r.Close(); err != nil || r.Close() != nil {
		t.Fatal("Close twice failed")
	}
	if err := r.Render(image.NewRGBA(image.Rect(0, 0, 64, 48))); err == nil {
		t.Fatal("render after Close succeeded")
	}
}

// edgeDensity is the mean absolute difference of horizontally adjacent
// grey levels in the bottom quarter of img: the checker floor's square
// edges give it a clear value, the sky's vertical gradient almost none.
func edgeDensity(img *image.RGBA) float64 {
	b := img.Bounds()
	grey := func(x, y int) float64 {
		i := img.PixOffset(x, y)
		return (float64(img.Pix[i]) + float64(img.Pix[i+1]) + float64(img.Pix[i+2])) / 3
	}
	var sum float64
	n := 0
	for y := b.Max.Y - b.Dy()/4; y < b.Max.Y; y++ {
		for x := b.Min.X + 1; x < b.Max.X; x++ {
			sum += math.Abs(grey(x, y) - grey(x-1, y))
			n++
		}
	}
	return sum / float64(n)
}

// TestFloorFollowsTheCheetah puts HalfCheetah's torso at x = 0, 39 (on the
// model's floor, which ends at 40 m), 100 and 10 000 m (past it) and draws
// it with the tracking camera: the bottom quarter of every frame must show
// the checker floor, not the sky (before the floor followed, a cheetah past
// 40 m ran over a void). The floor must stay put in the world as it
// follows: a torso moved by one checker square (0.25 m) sees the pattern
// shift under it, one moved by a whole period (0.5 m) sees the same floor.
func TestFloorFollowsTheCheetah(t *testing.T) {
	const w, h = 160, 120
	env, r := rendertest.Open(t, "halfcheetah", 0, w, h)
	ss, ok := env.(envs.Unwrapper).Unwrap().(interface {
		SetState(qpos, qvel []float64) error
	})
	if !ok {
		t.Fatal("halfcheetah has no SetState")
	}
	draw := func(x float64) *image.RGBA {
		qpos := make([]float64, 9)
		qpos[0] = x
		if err := ss.SetState(qpos, make([]float64, 9)); err != nil {
			t.Fatal(err)
		}
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		// MuJoCo's tracking camera moves a fifth of the way to its body
		// per frame; 80 frames let it arrive (0.8^80 of the jump is left).
		for k := 0; k < 80; k++ {
			if err := r.Render(img); err != nil {
				t.Fatal(err)
			}
		}
		return img
	}
	for _, x := range []float64{0, 39, 100, 10000} {
		d := edgeDensity(draw(x))
		t.Logf("x = %g m: floor edge density %.2f", x, d)
		if d < minFloorEdges {
			t.Errorf("torso at x = %g m: edge density of the frame's bottom quarter %.2f, want >= %v (no floor under the cheetah)", x, d, minFloorEdges)
		}
	}
	at := draw(100)
	_, square := rendertest.Stats(draw(100.25), at)
	_, period := rendertest.Stats(draw(100.5), at)
	t.Logf("mean channel difference from x = 100 m: %.3f at 100.25 m, %.3f at 100.5 m", square, period)
	if square < 10*period || square < rendertest.MinDiff {
		t.Errorf("the floor moves with the cheetah: a 0.25 m step changes the frame by %.3f, a 0.5 m step by %.3f", square, period)
	}
}
