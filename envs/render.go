package envs

import (
	"errors"
	"fmt"
	"image"
)

// Renderer draws an environment's current state into an image. It is tied
// to the environment that made it and, like it, not safe for concurrent use.
type Renderer interface {
	// Render draws the state now (after the last Reset or Step) into dst,
	// whose bounds must be the size the renderer was made with.
	Render(dst *image.RGBA) error
	// Close frees the renderer's resources (the environment stays open).
	Close() error
}

// Renderable is implemented by environments that can draw themselves:
// MuJoCo's through its offscreen renderer, BipedalWalker through a 2-D
// rasteriser.
type Renderable interface {
	NewRenderer(width, height int) (Renderer, error)
}

// Unwrapper is implemented by wrappers (such as TimeLimit).
type Unwrapper interface {
	Unwrap() Env
}

// ErrNotRenderable reports an environment that cannot draw itself.
var ErrNotRenderable = errors.New("environment cannot render")

// NewRenderer makes a width×height renderer for env, looking through
// wrappers for a Renderable environment.
func NewRenderer(env Env, width, height int) (Renderer, error) {
	if width < 16 || height < 16 || width > 8192 || height > 8192 || width%2 != 0 || height%2 != 0 {
		return nil, fmt.Errorf("render size %dx%d: want even sizes from 16 to 8192", width, height)
	}
	for e := env; e != nil; {
		if r, ok := e.(Renderable); ok {
			return r.NewRenderer(width, height)
		}
		u, ok := e.(Unwrapper)
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return nil, fmt.Errorf("%s: %w", env.Spec().ID, ErrNotRenderable)
}

// FrameRate is the frames per second at which env's steps play in real
// time, 1/dt (Gymnasium's render_fps): it looks through wrappers for a
// Dt() float64 method, and is 30 when there is none.
func FrameRate(env Env) float64 {
	for e := env; e != nil; {
		if d, ok := e.(interface{ Dt() float64 }); ok && d.Dt() > 0 {
			return 1 / d.Dt()
		}
		u, ok := e.(Unwrapper)
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return 30
}
