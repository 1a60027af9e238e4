package mujoco_test

import (
	"image"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/mujoco"
	"github.com/hyperctl/hyperctl/envs/rendertest"
)

// TestRenderFramesMove renders 30 steps of each MuJoCo task with random
// actions through MuJoCo's offscreen renderer on OSMesa: frames have
// content and change as the bodies move.
func TestRenderFramesMove(t *testing.T) {
	for _, name := range []string{"halfcheetah", "inverteddoublependulum", "pusher", "reacher"} {
		t.Run(name, func(t *testing.T) { rendertest.CheckFrames(t, name, 160, 120, 30) })
	}
}

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
