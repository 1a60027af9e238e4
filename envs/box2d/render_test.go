package box2d_test

import (
	"image"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/box2d"
	"github.com/hyperctl/hyperctl/envs/rendertest"
)

// TestRenderFramesMove draws 30 steps of BipedalWalker with random actions
// with the 2-D rasteriser: frames have content and change as it moves.
func TestRenderFramesMove(t *testing.T) {
	rendertest.CheckFrames(t, "bipedalwalker", 300, 200, 30)
}

func TestRenderRefusesBeforeResetAndWrongSize(t *testing.T) {
	env, err := envs.Make("bipedalwalker")
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	r, err := envs.NewRenderer(env, 64, 48)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Render(image.NewRGBA(image.Rect(0, 0, 64, 48))); err == nil {
		t.Fatal("render before Reset succeeded")
	}
	if _, err := env.Reset(0); err != nil {
		t.Fatal(err)
	}
	if err := r.Render(image.NewRGBA(image.Rect(0, 0, 60, 48))); err == nil {
		t.Fatal("a 60x48 image was accepted by a 64x48 renderer")
	}
}
