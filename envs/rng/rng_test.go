package rng

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"testing"
)

// Reference values come from the spec sheet (../shared/specs/envs.md,
// section 6 "Random numbers" and section 7 "Seeded values"), which records
// NumPy's output for seed 0.

func TestSeedZeroState(t *testing.T) {
	g := New(0)
	state := new(big.Int).Lsh(new(big.Int).SetUint64(g.stateHi), 64)
	state.Or(state, new(big.Int).SetUint64(g.stateLo))
	inc := new(big.Int).Lsh(new(big.Int).SetUint64(g.incHi), 64)
	inc.Or(inc, new(big.Int).SetUint64(g.incLo))
	for _, c := range []struct {
		name string
		got  *big.Int
		want string
	}{
		{"state", state, "35399562948360463058890781895381311971"},
		{"increment", inc, "87136372517582989555478159403783844777"},
	} {
		if c.got.String() != c.want {
			t.Errorf("seed 0 %s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if got := g.Uint64(); got != 0xa30febcfd9c2825f {
		t.Errorf("seed 0 first Uint64 = %#x, want 0xa30febcfd9c2825f", got)
	}
}

func TestSeededValues(t *testing.T) {
	cases := []struct {
		name string
		draw func(g *Generator) []float64
		want []float64
		tol  float64
	}{
		{"random", func(g *Generator) []float64 { return []float64{g.Random()} },
			[]float64{0.6369616873214543}, 0},
		{"integers(5,10)x3", func(g *Generator) []float64 {
			return []float64{float64(g.Integers(5, 10)), float64(g.Integers(5, 10)), float64(g.Integers(5, 10))}
		}, []float64{9, 8, 7}, 0},
		{"standard_normal x3", func(g *Generator) []float64 {
			return []float64{g.StandardNormal(), g.StandardNormal(), g.StandardNormal()}
		}, []float64{0.12573022, -0.13210486, 0.64042265}, 5e-9},
		// HalfCheetah-v4 reset: qpos = qpos0 + uniform(-0.1, 0.1, size=9);
		// HalfCheetah's qpos0 is all zeros, so qpos is the nine draws.
		{"halfcheetah qpos uniforms", func(g *Generator) []float64 {
			out := make([]float64, 9)
			for i := range out {
				out[i] = g.Uniform(-0.1, 0.1)
			}
			return out
		}, []float64{0.027392337, -0.046042657, -0.091805295, -0.096694473, 0.062654048,
			0.082551115, 0.021327155, 0.045899312, 0.008724998}, 5e-10},
		// ... then qvel = 0.1 * standard_normal(size=9); first three listed.
		{"halfcheetah qvel normals", func(g *Generator) []float64 {
			for i := 0; i < 9; i++ {
				g.Uniform(-0.1, 0.1)
			}
			out := make([]float64, 3)
			for i := range out {
				out[i] = 0.1 * g.StandardNormal()
			}
			return out
		}, []float64{-0.126542147, -0.062327446, 0.004132598}, 5e-10},
		// Pusher-v4 reset: the cylinder loop c0 = uniform(-0.3, 0),
		// c1 = uniform(-0.2, 0.2), accepted on the 2nd try.
		{"pusher cylinder", func(g *Generator) []float64 {
			var c0, c1 float64
			for tries := 1; ; tries++ {
				c0, c1 = g.Uniform(-0.3, 0), g.Uniform(-0.2, 0.2)
				if math.Hypot(c0, c1) > 0.17 {
					return []float64{float64(tries), c0, c1}
				}
			}
		}, []float64{2, -0.287707943, -0.193388946}, 5e-10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.draw(New(0))
			for i := range c.want {
				if d := math.Abs(got[i] - c.want[i]); d > c.tol {
					t.Errorf("value %d = %.17g, want %.17g (|diff| %.3g > %.3g)", i, got[i], c.want[i], d, c.tol)
				}
			}
		})
	}
}

func TestUint32HalvesAndBuffer(t *testing.T) {
	ref := New(0)
	w0, w1, w2 := ref.Uint64(), ref.Uint64(), ref.Uint64()

	g := New(0)
	if got := g.Uint32(); got != uint32(w0) {
		t.Fatalf("first Uint32 = %#x, want low half %#x", got, uint32(w0))
	}
	// A double drawn between the halves uses a fresh word and leaves the
	// buffered high half of w0 in place.
	if got, want := g.Random(), float64(w1>>11)/(1<<53); got != want {
		t.Fatalf("Random between halves = %v, want %v", got, want)
	}
	if got := g.Uint32(); got != uint32(w0>>32) {
		t.Fatalf("second Uint32 = %#x, want buffered high half %#x", got, uint32(w0>>32))
	}
	if got := g.Uint32(); got != uint32(w2) {
		t.Fatalf("third Uint32 = %#x, want low half of next word %#x", got, uint32(w2))
	}
}

func TestUniform(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{-0.1, 0.1}, {0, 200}, {-5, 5}, {3, -2}} {
		g, ref := New(7), New(7)
		for i := 0; i < 1000; i++ {
			got := g.Uniform(c.lo, c.hi)
			want := c.lo + (c.hi-c.lo)*ref.Random()
			if got != want {
				t.Fatalf("Uniform(%v,%v) draw %d = %v, want %v", c.lo, c.hi, i, got, want)
			}
			lo, hi := math.Min(c.lo, c.hi), math.Max(c.lo, c.hi)
			if got < lo || got > hi {
				t.Fatalf("Uniform(%v,%v) = %v out of range", c.lo, c.hi, got)
			}
		}
	}
}

func TestIntegersEdgeCases(t *testing.T) {
	cases := []struct {
		name          string
		lo, hi        int64
		wantDrawn     int // 64-bit words consumed by one call (no rejection)
		wantFixed     bool
		wantFixedVal  int64
		checkInterval bool
	}{
		{"empty hi==lo returns lo", 4, 4, 0, true, 4, false},
		{"inverted hi<lo returns lo", 9, 3, 0, true, 9, false},
		{"single value draws nothing", 5, 6, 0, true, 5, false},
		{"32-bit range", -3, 1000, 1, false, 0, true},
		{"full 32-bit range", 0, 1 << 32, 1, false, 0, true},
		{"64-bit range", -1 << 40, 1 << 40, 1, false, 0, true},
		{"whole int64 range", math.MinInt64, math.MaxInt64, 1, false, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := New(3)
			v := g.Integers(c.lo, c.hi)
			if c.wantFixed && v != c.wantFixedVal {
				t.Errorf("Integers(%d,%d) = %d, want %d", c.lo, c.hi, v, c.wantFixedVal)
			}
			if c.checkInterval && (v < c.lo || v >= c.hi) {
				t.Errorf("Integers(%d,%d) = %d outside [lo,hi)", c.lo, c.hi, v)
			}
			// Count the 64-bit words consumed: the next Uint64 of g must be
			// word number wantDrawn of a fresh generator.
			ref := New(3)
			for i := 0; i < c.wantDrawn; i++ {
				ref.Uint64()
			}
			if g.Uint64() != ref.Uint64() {
				t.Errorf("Integers(%d,%d) consumed a different number of words than %d", c.lo, c.hi, c.wantDrawn)
			}
		})
	}
	// 32-bit ranges use half-words: two calls share one 64-bit word.
	g, ref := New(11), New(11)
	w := ref.Uint64()
	a, b := g.Integers(0, 1<<32), g.Integers(0, 1<<32)
	if a != int64(uint32(w)) || b != int64(w>>32) {
		t.Errorf("full 32-bit range draws = %d, %d, want halves %d, %d", a, b, uint32(w), w>>32)
	}
}

// TestIntegersUniform checks Lemire's rejection gives exactly uniform counts
// in a loose chi-square sense over a small range (seeded, fixed iterations).
func TestIntegersUniform(t *testing.T) {
	g := New(2024)
	const k, n = 7, 70000
	var counts [k]int
	for i := 0; i < n; i++ {
		v := g.Integers(0, k)
		if v < 0 || v >= k {
			t.Fatalf("Integers(0,%d) = %d", k, v)
		}
		counts[v]++
	}
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c) - n/k
		chi2 += d * d / (n / k)
	}
	if chi2 > 22.46 { // p = 0.001 for 6 degrees of freedom
		t.Errorf("chi-square %.2f over counts %v", chi2, counts)
	}
}

// TestStandardNormalMoments is a sanity check over many draws, covering the
// wedge and tail paths: mean ≈ 0, variance ≈ 1, tail mass beyond r.
func TestStandardNormalMoments(t *testing.T) {
	g := New(99)
	const n = 400000
	var sum, sq float64
	tail := 0
	for i := 0; i < n; i++ {
		x := g.StandardNormal()
		sum += x
		sq += x * x
		if math.Abs(x) > zigguratNorR {
			tail++
		}
	}
	mean, variance := sum/n, sq/n-(sum/n)*(sum/n)
	if math.Abs(mean) > 0.01 || math.Abs(variance-1) > 0.01 {
		t.Errorf("mean %.4f variance %.4f, want 0 and 1", mean, variance)
	}
	// P(|X| > 3.6541528853610088) = erfc(r/√2) ≈ 2.58e-4 → ≈ 103 of 400000.
	want := n * math.Erfc(zigguratNorR/math.Sqrt2)
	if d := float64(tail) - want; math.Abs(d) > 5*math.Sqrt(want) {
		t.Errorf("%d draws beyond r, want about %.0f", tail, want)
	}
}

// TestZigguratTables checks the embedded tables against their defining
// relations, which catches any transcription error: with x[i] = wi[i]·2⁵²,
// fi[i] = exp(-x[i]²/2) to within 4 ulp, ki[i] = ⌊2⁵²·x[i-1]/x[i]⌋ (+0 or +1
// from the generator's rounding), ki[0]·wi[0] = r.
func TestZigguratTables(t *testing.T) {
	if fiDouble[0] != 1 || kiDouble[1] != 0 {
		t.Fatalf("fi[0] = %v, ki[1] = %v; want 1 and 0", fiDouble[0], kiDouble[1])
	}
	if wiDouble[255]*(1<<52) != zigguratNorR {
		t.Errorf("x[255] = %v, want r = %v", wiDouble[255]*(1<<52), zigguratNorR)
	}
	if got := float64(kiDouble[0]) * wiDouble[0]; math.Abs(got-zigguratNorR) > 1e-15 {
		t.Errorf("ki[0]·wi[0] = %v, want r = %v", got, zigguratNorR)
	}
	two52 := new(big.Rat).SetFloat64(1 << 52)
	for i := 1; i < 256; i++ {
		x := wiDouble[i] * (1 << 52)
		want := math.Exp(-0.5 * x * x)
		if ulps := math.Abs(fiDouble[i]-want) / (math.Nextafter(want, 2) - want); ulps > 4 {
			t.Errorf("fi[%d] = %v, exp(-x²/2) = %v (%.0f ulp apart)", i, fiDouble[i], want, ulps)
		}
		if i >= 2 {
			ratio := new(big.Rat).Quo(new(big.Rat).SetFloat64(wiDouble[i-1]), new(big.Rat).SetFloat64(wiDouble[i]))
			ratio.Mul(ratio, two52)
			floor := new(big.Int).Quo(ratio.Num(), ratio.Denom()).Uint64()
			if d := kiDouble[i] - floor; d > 1 {
				t.Errorf("ki[%d] = %#x, ⌊2⁵²·x[%d]/x[%d]⌋ = %#x", i, kiDouble[i], i-1, i, floor)
			}
		}
		if i < 255 && !(wiDouble[i] < wiDouble[i+1] && fiDouble[i] > fiDouble[i+1]) {
			t.Errorf("layer %d: x or f not monotone", i)
		}
	}
}

func TestMarshalContinuation(t *testing.T) {
	// Leave a buffered half pending before the snapshot.
	g := New(12345)
	for i := 0; i < 10; i++ {
		g.StandardNormal()
	}
	g.Uint32()
	b, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	draws := func(g *Generator) []float64 {
		out := make([]float64, 0, 400)
		for i := 0; i < 100; i++ {
			out = append(out, float64(g.Uint32()), g.StandardNormal(), float64(g.Integers(-7, 1000)), g.Uniform(-1, 1))
		}
		return out
	}
	want := draws(g)

	var h Generator
	if err := h.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if got := draws(&h); !equal(got, want) {
		t.Fatalf("restored generator diverges from the original")
	}
	// The restored state re-marshals to the same bytes.
	h2 := &Generator{}
	if err := h2.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if b2, _ := h2.MarshalBinary(); !bytes.Equal(b, b2) {
		t.Errorf("re-marshal differs")
	}
}

func TestUnmarshalRejectsBadState(t *testing.T) {
	good, _ := New(1).MarshalBinary()
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"short", good[:20]},
		{"long", append(append([]byte(nil), good...), 0)},
		{"version", mut(func(b []byte) []byte { b[0] = 9; return b })},
		{"even increment", mut(func(b []byte) []byte { b[25] &^= 1; return b })},
		{"flag", mut(func(b []byte) []byte { b[33] = 2; return b })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := New(5)
			before, _ := g.MarshalBinary()
			err := g.UnmarshalBinary(c.b)
			if !errors.Is(err, ErrBadState) {
				t.Fatalf("UnmarshalBinary error = %v, want ErrBadState", err)
			}
			if after, _ := g.MarshalBinary(); !bytes.Equal(before, after) {
				t.Errorf("state changed on error")
			}
		})
	}
}

func TestSeedsDiffer(t *testing.T) {
	seen := map[uint64]uint64{}
	for _, s := range []uint64{0, 1, 2, 42, 1 << 32, 1<<32 + 1, math.MaxUint64} {
		w := New(s).Uint64()
		if prev, dup := seen[w]; dup {
			t.Errorf("seeds %d and %d give the same first word %#x", prev, s, w)
		}
		seen[w] = s
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func BenchmarkUint64(b *testing.B) {
	g := New(0)
	var s uint64
	for i := 0; i < b.N; i++ {
		s += g.Uint64()
	}
	sink = float64(s)
}

func BenchmarkUniform(b *testing.B) {
	g := New(0)
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += g.Uniform(-1, 1)
	}
	sink = s
}

func BenchmarkStandardNormal(b *testing.B) {
	g := New(0)
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += g.StandardNormal()
	}
	sink = s
}

func BenchmarkIntegers(b *testing.B) {
	g := New(0)
	var s int64
	for i := 0; i < b.N; i++ {
		s += g.Integers(5, 10)
	}
	sink = float64(s)
}

var sink float64
