package box2d

import (
	"image"
	"testing"

	b2 "github.com/ByteArena/box2d"
)

// TestGroundFillsTheView puts the hull at the start, at the finish (190
// terrain steps, where an episode ends) and in the middle, and draws views
// of several shapes: every pixel of the bottom row must be ground. Before
// the ground was continued past the terrain's ends, the view ahead of a
// walker at the finish showed sky below the horizon from 92.9 m on (the
// last terrain point), and a wide view at the start left of x = 0.
func TestGroundFillsTheView(t *testing.T) {
	w := newWalker(t)
	if _, err := w.Reset(0); err != nil {
		t.Fatal(err)
	}
	y := w.hull.GetPosition().Y
	for _, size := range [][2]int{{600, 400}, {640, 480}, {1600, 200}, {200, 400}} {
		r, err := w.NewRenderer(size[0], size[1])
		if err != nil {
			t.Fatal(err)
		}
		img := image.NewRGBA(image.Rect(0, 0, size[0], size[1]))
		for _, x := range []float64{terrainStep * terrainStartpad / 2, terrainStep * terrainLength / 2, terrainStep * (terrainLength - terrainGrass)} {
			w.hull.SetTransform(b2.MakeB2Vec2(x, y), 0)
			if err := r.Render(img); err != nil {
				t.Fatal(err)
			}
			sky := 0
			for px := 0; px < size[0]; px++ {
				i := img.PixOffset(px, size[1]-1)
				if c := img.Pix[i : i+3]; int(c[0]) != terrainColour[0] || int(c[1]) != terrainColour[1] || int(c[2]) != terrainColour[2] {
					sky++
				}
			}
			if sky > 0 {
				t.Errorf("%dx%d view, hull at x = %.1f m: %d of the bottom row's %d pixels are not ground", size[0], size[1], x, sky, size[0])
			}
		}
	}
}

// TestGroundPolygonPastTheEnds checks the outline: the terrain points in
// view with one neighbour on each side, flat continuations at the end
// heights past the terrain's ends, x never going back, closed along y = 0.
func TestGroundPolygonPastTheEnds(t *testing.T) {
	w := newWalker(t)
	if _, err := w.Reset(0); err != nil {
		t.Fatal(err)
	}
	ter := &w.ter
	last := terrainLength - 1
	pt := func(i int) [2]float64 { return [2]float64{ter.x[i], ter.y[i]} }
	for _, tc := range []struct {
		name                string
		left, right         float64
		wantFirst, wantLast [2]float64 // the outline's first and last top points
		wantTop             int        // top points
	}{
		{"inside", ter.x[50] + 0.1, ter.x[60] - 0.1, pt(50), pt(60), 11},
		{"left of the start", -30, ter.x[10], [2]float64{-30, ter.y[0]}, pt(11), 13},
		{"past the end", ter.x[last-5], ter.x[last] + 30, pt(last - 6), [2]float64{ter.x[last] + 30, ter.y[last]}, 8},
		{"wholly past the end", ter.x[last] + 10, ter.x[last] + 30, pt(last), [2]float64{ter.x[last] + 30, ter.y[last]}, 2},
		{"wholly before the start", -30, -10, [2]float64{-30, ter.y[0]}, pt(0), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := groundPolygon(ter, tc.left, tc.right)
			n := len(g)
			top := g[:n-2]
			if len(top) != tc.wantTop || top[0] != tc.wantFirst || top[len(top)-1] != tc.wantLast {
				t.Errorf("%d top points from %v to %v, want %d from %v to %v", len(top), top[0], top[len(top)-1], tc.wantTop, tc.wantFirst, tc.wantLast)
			}
			if g[n-2] != [2]float64{top[len(top)-1][0], 0} || g[n-1] != [2]float64{top[0][0], 0} {
				t.Errorf("not closed along y = 0: %v, %v", g[n-2], g[n-1])
			}
			for i := 1; i < len(top); i++ {
				if top[i][0] < top[i-1][0] {
					t.Fatalf("x goes back at point %d: %v after %v", i, top[i], top[i-1])
				}
			}
		})
	}
}
