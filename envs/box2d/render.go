package box2d

import (
	"fmt"
	"image"

	"git.sr.ht/~sbinet/gg"
	b2 "github.com/ByteArena/box2d"

	"github.com/hyperctl/hyperctl/envs"
)

// Colours of Gymnasium's BipedalWalker render (RGB, 0-255).
var (
	skyColour     = [3]int{215, 215, 255}
	cloudColour   = [3]int{255, 255, 255}
	terrainColour = [3]int{102, 153, 76}
	hullFill      = [3]int{127, 51, 229}
	hullEdge      = [3]int{76, 76, 127}
	lidarColour   = [3]int{255, 0, 0}
	flagColour    = [3]int{230, 51, 0}
)

// legColours are Gymnasium's leg fill and outline for leg side i (−1, +1).
func legColours(i float64) (fill, edge [3]int) {
	d := int(i * 25)
	return [3]int{153 - d, 76 - d, 127 - d}, [3]int{102 - d, 76 - d, 76 - d}
}

// walkerRenderer draws the walker with a 2-D rasteriser (gg), as Gymnasium's
// pygame render: sky, parallax clouds, the terrain, the lidar, the hull and
// legs, and the start flag, scrolled so the hull stays at a fifth of the
// width. The view is Gymnasium's 400 pixels high scaled to the image
// height (width shows correspondingly more or less terrain). Deviation:
// all 10 lidar rays are drawn every frame (Gymnasium animates one at a time).
type walkerRenderer struct {
	w    *Walker
	W, H int
}

// NewRenderer makes a renderer (envs.Renderable).
func (w *Walker) NewRenderer(width, height int) (envs.Renderer, error) {
	if w.closed {
		return nil, envs.ErrClosed
	}
	return &walkerRenderer{w: w, W: width, H: height}, nil
}

// Render draws the current state.
func (r *walkerRenderer) Render(dst *image.RGBA) error {
	w := r.w
	if w.closed {
		return envs.ErrClosed
	}
	if b := dst.Bounds(); b.Dx() != r.W || b.Dy() != r.H {
		return fmt.Errorf("%s: render into a %dx%d image, want %dx%d", w.spec.ID, b.Dx(), b.Dy(), r.W, r.H)
	}
	if !w.ready || w.hull == nil {
		return fmt.Errorf("%s: render before Reset", w.spec.ID)
	}
	k := float64(r.H) / viewportH * scale // pixels per metre
	hx := w.hull.GetPosition().X
	if !finite(hx) {
		return fmt.Errorf("%s: render: the hull position is %v", w.spec.ID, hx)
	}
	scroll := hx - float64(r.W)/k/5 // metres at the left edge
	px := func(x float64) float64 { return (x - scroll) * k }
	py := func(y float64) float64 { return float64(r.H) - y*k }

	dc := gg.NewContextForRGBA(dst)
	setRGB := func(c [3]int) { dc.SetRGB255(c[0], c[1], c[2]) }
	setRGB(skyColour)
	dc.Clear()
	poly := func(pts [][2]float64, fill [3]int, edge *[3]int, xs func(float64) float64) {
		dc.NewSubPath()
		for i, p := range pts {
			if i == 0 {
				dc.MoveTo(xs(p[0]), py(p[1]))
			} else {
				dc.LineTo(xs(p[0]), py(p[1]))
			}
		}
		dc.ClosePath()
		setRGB(fill)
		if edge == nil {
			dc.Fill()
			return
		}
		dc.FillPreserve()
		setRGB(*edge)
		dc.SetLineWidth(1)
		dc.Stroke()
	}
	// Clouds scroll at half speed.
	viewW := float64(r.W) / k
	for _, c := range w.clouds {
		if c.x2 < scroll/2 || c.x1 > scroll/2+viewW {
			continue
		}
		poly(c.poly[:], cloudColour, nil, func(x float64) float64 { return (x - scroll/2) * k })
	}
	// Terrain: Gymnasium fills one polygon per edge down to y = 0; one
	// polygon over the visible edges draws the same area without seams.
	poly(groundPolygon(&w.ter, scroll, scroll+viewW), terrainColour, nil, px)
	// Lidar rays from the hull to their hits.
	p1 := w.hull.GetPosition()
	setRGB(lidarColour)
	dc.SetLineWidth(1)
	for i, f := range w.lidar {
		p2 := lidarEnd(p1, i)
		dc.DrawLine(px(p1.X), py(p1.Y), px(p1.X+f*(p2.X-p1.X)), py(p1.Y+f*(p2.Y-p1.Y)))
		dc.Stroke()
	}
	// Bodies: legs first (Gymnasium's drawlist is terrain, legs, hull).
	body := func(b *b2.B2Body, fill, edge [3]int) {
		xf := b.GetTransform()
		for f := b.GetFixtureList(); f != nil; f = f.GetNext() {
			s, ok := f.GetShape().(*b2.B2PolygonShape)
			if !ok {
				continue
			}
			pts := make([][2]float64, s.M_count)
			for j := 0; j < s.M_count; j++ {
				v := b2.B2TransformVec2Mul(xf, s.M_vertices[j])
				pts[j] = [2]float64{v.X, v.Y}
			}
			poly(pts, fill, &edge, px)
		}
	}
	for k, i := range [2]float64{-1, +1} {
		fill, edge := legColours(i)
		body(w.legs[2*k], fill, edge)
		body(w.legs[2*k+1], fill, edge)
	}
	body(w.hull, hullFill, hullEdge)
	// The start flag.
	fx := terrainStep * 3
	fy1 := terrainHeight
	fy2 := fy1 + 50/scale
	dc.SetRGB255(0, 0, 0)
	dc.DrawLine(px(fx), py(fy1), px(fx), py(fy2))
	dc.Stroke()
	black := [3]int{0, 0, 0}
	poly([][2]float64{{fx, fy2}, {fx, fy2 - 10/scale}, {fx + 25/scale, fy2 - 5/scale}}, flagColour, &black, px)
	return nil
}

// groundPolygon is the outline of the terrain between x = left and right
// (metres), closed along y = 0: the terrain's points in that range and
// their neighbours outside it (an end point is always one: g is never
// empty). Past the terrain's ends the ground continues
// flat at the end heights, so the view is never left without ground: a wide
// view at the start reaches left of x = 0, and the view ahead of a walker
// at the finish (x = 190 steps) reaches past the last point (199 steps).
// Gymnasium draws nothing there. It is drawing only; the walker cannot get
// there (an episode ends at the finish, or when the hull falls left of 0).
func groundPolygon(t *terrain, left, right float64) [][2]float64 {
	var g [][2]float64
	for i := 0; i < terrainLength; i++ {
		if (i+1 < terrainLength && t.x[i+1] < left) || (i > 0 && t.x[i-1] > right) {
			continue
		}
		g = append(g, [2]float64{t.x[i], t.y[i]})
	}
	if first := g[0]; first[0] > left {
		g = append([][2]float64{{left, first[1]}}, g...)
	}
	if last := g[len(g)-1]; last[0] < right {
		g = append(g, [2]float64{right, last[1]})
	}
	return append(g, [2]float64{g[len(g)-1][0], 0}, [2]float64{g[0][0], 0})
}

// Close does nothing: the renderer holds no resources.
func (r *walkerRenderer) Close() error { return nil }

// Dt is the duration of one step, 1/50 s (Gymnasium's FPS).
func (w *Walker) Dt() float64 { return 1.0 / fps }
