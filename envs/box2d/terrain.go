package box2d

import (
	"math"

	"github.com/hyperctl/hyperctl/envs/rng"
)

// terrain is the normal-mode (hardcore=False) BipedalWalker ground: 200
// points joined by 199 edges, plus a record of the random draws it used
// (for tests against the fact sheet).
type terrain struct {
	x, y [terrainLength]float64

	counters []int64 // the grass counters drawn with integers(5, 10), in order
	flat     []int   // indices of the oneshot (flat) steps
	uniforms int     // uniform(-1, 1) draws
	integers int     // integers(5, 10) draws
}

// sign is NumPy's sign for finite values: -1, 0 or +1.
func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// generate fills t from g exactly as Gymnasium's _generate_terrain does in
// normal mode: in GRASS state every step that is not a oneshot updates the
// velocity (and after the start pad draws one uniform), and every time the
// counter runs out one integers(TERRAIN_GRASS/2, TERRAIN_GRASS) is drawn and
// the next step is a oneshot (flat) step. The arithmetic is in float64 in the
// same order as the Python.
func (t *terrain) generate(g *rng.Generator) {
	t.counters = t.counters[:0]
	t.flat = t.flat[:0]
	t.uniforms, t.integers = 0, 0

	step, height := terrainStep, terrainHeight
	velocity := 0.0
	y := height
	counter := int64(terrainStartpad)
	oneshot := false
	for i := 0; i < terrainLength; i++ {
		x := float64(i) * step
		if !oneshot {
			velocity = 0.8*velocity + 0.01*sign(height-y)
			if i > terrainStartpad {
				velocity += g.Uniform(-1, 1) / scale
				t.uniforms++
			}
			y += velocity
		} else {
			t.flat = append(t.flat, i)
		}
		oneshot = false
		t.x[i], t.y[i] = x, y
		counter--
		if counter == 0 {
			counter = g.Integers(terrainGrass/2, terrainGrass)
			t.integers++
			t.counters = append(t.counters, counter)
			oneshot = true
		}
	}
}

// cloud is one cloud polygon (5 points, metres) and its x extent.
type cloud struct {
	poly   [5][2]float64
	x1, x2 float64
}

// drawClouds makes Gymnasium's _generate_clouds: the clouds are only drawn
// on screen (see render.go), but their 110 uniforms sit between the terrain
// and the initial push in the random stream. It appends to dst.
func drawClouds(g *rng.Generator, dst []cloud) []cloud {
	for i := 0; i < terrainLength/20; i++ {
		x := g.Uniform(0, terrainLength) * terrainStep
		y := viewportH / scale * 3 / 4
		var c cloud
		for a := 0; a < 5; a++ {
			dx := g.Uniform(0, 5*terrainStep) // x offset
			dy := g.Uniform(0, 5*terrainStep) // y offset
			c.poly[a] = [2]float64{
				x + 15*terrainStep*math.Sin(3.14*2*float64(a)/5) + dx,
				y + 5*terrainStep*math.Cos(3.14*2*float64(a)/5) + dy,
			}
		}
		c.x1, c.x2 = c.poly[0][0], c.poly[0][0]
		for _, p := range c.poly {
			c.x1, c.x2 = math.Min(c.x1, p[0]), math.Max(c.x2, p[0])
		}
		dst = append(dst, c)
	}
	return dst
}
