// Package rng is a bit-exact re-implementation of the random stream
// Gymnasium environments draw from: NumPy's
// np.random.Generator(PCG64(SeedSequence(seed))), as created by
// gymnasium.utils.seeding.np_random(seed).
//
// It reproduces, for the same seed, the same sequence of
//
//   - raw 64-bit words (PCG64, the XSL-RR 128/64 variant, not PCG64DXSM),
//   - 32-bit words (the low half of a 64-bit word first, the high half
//     buffered for the next 32-bit request),
//   - doubles in [0, 1) (Generator.random), uniforms (Generator.uniform),
//   - bounded integers (Generator.integers, Lemire's method),
//   - standard normals (Generator.standard_normal, the 256-layer ziggurat).
//
// A call to Uniform, Random, StandardNormal or Integers here consumes the
// same words as the corresponding scalar NumPy call; NumPy's size=n variants
// are n scalar calls in sequence.
//
// Known limit of exactness: StandardNormal's rare slow paths (under 1% of
// draws) evaluate exp and, in the tail beyond r ≈ 3.654 (about 0.03% of
// draws), log1p with Go's math package rather than the C library NumPy links.
// Both are accurate to within one ulp, so a tail value may differ from NumPy's
// in the last bit, and a wedge accept/reject decision could in principle flip
// when the two sides of the comparison are within an ulp (probability about
// 1e-16 per draw). No such case is known.
//
// A Generator is not safe for concurrent use.
package rng

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// PCG64's 128-bit LCG multiplier (PCG_DEFAULT_MULTIPLIER_128).
const (
	mulHi = 0x2360ED051FC65DA4
	mulLo = 0x4385DF649FCCF645
)

// SeedSequence's hashing constants (numpy.random.bit_generator).
const (
	ssInitA    uint32 = 0x43b0d7e5
	ssMultA    uint32 = 0x931e8875
	ssInitB    uint32 = 0x8b51f9dd
	ssMultB    uint32 = 0x58f38ded
	ssMixMultL uint32 = 0xca01f9dd
	ssMixMultR uint32 = 0x4973f715
	ssXShift          = 16 // half of 32 bits
	ssPoolSize        = 4
)

// Generator is NumPy's Generator over a PCG64 bit generator.
// The zero value is not useful; create one with New.
type Generator struct {
	stateHi, stateLo uint64 // 128-bit LCG state
	incHi, incLo     uint64 // 128-bit increment (odd)
	hasUint32        bool   // a buffered high half is pending
	uinteger         uint32 // the buffered high half
}

// New returns the generator NumPy builds for
// np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))), which
// is what Gymnasium's env.reset(seed=seed) installs as env.np_random.
func New(seed uint64) *Generator {
	words := seedSequenceState(seed)
	g := &Generator{}
	g.seed(words[0], words[1], words[2], words[3])
	return g
}

// seedSequenceState returns SeedSequence(seed).generate_state(4, uint64):
// the entropy is hashed into a pool of four 32-bit words, which is then
// expanded to eight 32-bit words and read as four little-endian uint64s.
func seedSequenceState(seed uint64) [4]uint64 {
	// The entropy as 32-bit words, least significant first; 0 is one word.
	entropy := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		entropy = append(entropy, hi)
	}

	// mix_entropy.
	hashConst := ssInitA
	hashmix := func(v uint32) uint32 {
		v ^= hashConst
		hashConst *= ssMultA
		v *= hashConst
		v ^= v >> ssXShift
		return v
	}
	mix := func(x, y uint32) uint32 {
		r := ssMixMultL*x - ssMixMultR*y
		r ^= r >> ssXShift
		return r
	}
	var pool [ssPoolSize]uint32
	for i := range pool {
		var e uint32
		if i < len(entropy) {
			e = entropy[i]
		}
		pool[i] = hashmix(e)
	}
	for src := range pool {
		for dst := range pool {
			if src != dst {
				pool[dst] = mix(pool[dst], hashmix(pool[src]))
			}
		}
	}
	// Entropy beyond the pool size cannot occur for a uint64 seed (at most
	// two words), so NumPy's third mixing loop is a no-op here.

	// generate_state(8 words of 32 bits) viewed as 4 uint64.
	hashConst = ssInitB
	var out [4]uint64
	for i := 0; i < 8; i++ {
		v := pool[i%ssPoolSize]
		v ^= hashConst
		hashConst *= ssMultB
		v *= hashConst
		v ^= v >> ssXShift
		out[i/2] |= uint64(v) << (32 * uint(i%2))
	}
	return out
}

// seed is pcg64_set_seed: state s = s0<<64|s1, sequence i = i0<<64|i1,
// then PCG's srandom: inc = i<<1|1; state = 0; step; state += s; step.
func (g *Generator) seed(s0, s1, i0, i1 uint64) {
	g.incHi = i0<<1 | i1>>63
	g.incLo = i1<<1 | 1
	g.stateHi, g.stateLo = 0, 0
	g.step()
	var c uint64
	g.stateLo, c = bits.Add64(g.stateLo, s1, 0)
	g.stateHi, _ = bits.Add64(g.stateHi, s0, c)
	g.step()
	g.hasUint32, g.uinteger = false, 0
}

// step advances the LCG: state = state*mul + inc (mod 2^128).
func (g *Generator) step() {
	hi, lo := bits.Mul64(g.stateLo, mulLo)
	hi += g.stateHi*mulLo + g.stateLo*mulHi
	var c uint64
	lo, c = bits.Add64(lo, g.incLo, 0)
	hi, _ = bits.Add64(hi, g.incHi, c)
	g.stateHi, g.stateLo = hi, lo
}

// Uint64 returns the next raw 64-bit word (PCG64's next_uint64): advance the
// state, then output XSL-RR: rotate (hi xor lo) right by the top 6 bits.
func (g *Generator) Uint64() uint64 {
	g.step()
	return bits.RotateLeft64(g.stateHi^g.stateLo, -int(g.stateHi>>58))
}

// Uint32 returns the next 32-bit word as NumPy's PCG64 next_uint32 does: if a
// high half is buffered it is returned; otherwise a 64-bit word is drawn, its
// high half buffered and its low half returned. Uint64, Random, Uniform and
// StandardNormal neither use nor clear the buffer.
func (g *Generator) Uint32() uint32 {
	if g.hasUint32 {
		g.hasUint32 = false
		return g.uinteger
	}
	w := g.Uint64()
	g.hasUint32 = true
	g.uinteger = uint32(w >> 32)
	return uint32(w)
}

// Random returns a double in [0, 1) with 53 random bits, NumPy's
// next_double and Generator.random(): (Uint64() >> 11) · 2⁻⁵³.
func (g *Generator) Random() float64 {
	return float64(g.Uint64()>>11) * (1.0 / (1 << 53))
}

// Uniform returns lo + (hi-lo)·Random(), exactly NumPy's
// Generator.uniform(lo, hi) for scalar bounds; it draws one 64-bit word.
// As in NumPy, hi < lo is allowed (the result lies in (hi, lo]). NumPy raises
// OverflowError when hi-lo is not finite; this method has no error result and
// instead returns the arithmetic result (NaN or ±Inf) after consuming the
// word, so callers must pass finite bounds.
func (g *Generator) Uniform(lo, hi float64) float64 {
	return lo + (hi-lo)*g.Random()
}

// Integers returns an int64 in [lo, hi), exactly as NumPy's
// Generator.integers(lo, hi) (dtype int64, endpoint=False):
//
//   - with rng = hi-lo-1 (the inclusive range, as an unsigned 64-bit value),
//     rng == 0 returns lo without drawing;
//   - rng < 2³²-1 uses Lemire's multiply-shift on 32-bit draws (Uint32, so it
//     shares the half-word buffer) with rejection of the biased low products;
//   - rng == 2³²-1 returns lo + Uint32();
//   - larger ranges use Lemire's method on 64-bit draws (Uint64), as NumPy.
//
// Where NumPy raises ValueError (hi <= lo), Integers returns lo and draws
// nothing. The full int64 range is supported without overflow.
func (g *Generator) Integers(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	rng := uint64(hi) - uint64(lo) - 1 // exact in two's complement
	off := uint64(lo)
	switch {
	case rng == 0:
		return lo
	case rng < math.MaxUint32:
		return int64(off + uint64(g.lemire32(uint32(rng))))
	case rng == math.MaxUint32:
		return int64(off + uint64(g.Uint32()))
	default: // rng < 2^64-1 always holds for an exclusive int64 bound
		return int64(off + g.lemire64(rng))
	}
}

// lemire32 returns a uniform value in [0, rng] (rng < 2³²-1) from 32-bit draws.
func (g *Generator) lemire32(rng uint32) uint32 {
	excl := rng + 1
	m := uint64(g.Uint32()) * uint64(excl)
	left := uint32(m)
	if left < excl {
		threshold := (math.MaxUint32 - rng) % excl // = 2^32 mod excl
		for left < threshold {
			m = uint64(g.Uint32()) * uint64(excl)
			left = uint32(m)
		}
	}
	return uint32(m >> 32)
}

// lemire64 returns a uniform value in [0, rng] (rng < 2⁶⁴-1) from 64-bit draws.
func (g *Generator) lemire64(rng uint64) uint64 {
	excl := rng + 1
	hi, left := bits.Mul64(g.Uint64(), excl)
	if left < excl {
		threshold := (math.MaxUint64 - rng) % excl // = 2^64 mod excl
		for left < threshold {
			hi, left = bits.Mul64(g.Uint64(), excl)
		}
	}
	return hi
}

// StandardNormal returns a standard normal deviate drawn exactly as NumPy's
// Generator.standard_normal() (random_standard_normal): one 64-bit word gives
// the layer (low 8 bits), the sign (bit 8) and a 52-bit magnitude; values
// inside the layer's rectangle are returned at once, and the rest go through
// the wedge test (one more Random draw) or, for layer 0, the exponential tail
// sampler (pairs of Random draws). See the package comment for the one
// source of possible last-bit differences.
func (g *Generator) StandardNormal() float64 {
	for {
		r := g.Uint64()
		idx := r & 0xff
		r >>= 8
		sign := r & 1
		rabs := (r >> 1) & 0x000fffffffffffff
		x := float64(rabs) * wiDouble[idx]
		if sign != 0 {
			x = -x
		}
		if rabs < kiDouble[idx] {
			return x
		}
		if idx == 0 {
			// Tail beyond r (Marsaglia's method); 1-U avoids log(0).
			for {
				xx := -zigguratNorInvR * math.Log1p(-g.Random())
				yy := -math.Log1p(-g.Random())
				if yy+yy > xx*xx {
					if (rabs>>8)&1 != 0 {
						return -(zigguratNorR + xx)
					}
					return zigguratNorR + xx
				}
			}
		}
		if (fiDouble[idx-1]-fiDouble[idx])*g.Random()+fiDouble[idx] < math.Exp(-0.5*x*x) {
			return x
		}
	}
}

// Binary state format, version 1 (little endian, 38 bytes):
//
//	[0]      format version (1)
//	[1:9]    state, high 64 bits
//	[9:17]   state, low 64 bits
//	[17:25]  increment, high 64 bits
//	[25:33]  increment, low 64 bits (odd)
//	[33]     1 if a 32-bit half is buffered, else 0
//	[34:38]  the buffered half
const (
	stateVersion = 1
	stateLen     = 38
)

// MarshalBinary encodes the full generator state, including the buffered
// 32-bit half, so that UnmarshalBinary restores a generator that continues
// the exact same stream.
func (g *Generator) MarshalBinary() ([]byte, error) {
	b := make([]byte, stateLen)
	b[0] = stateVersion
	binary.LittleEndian.PutUint64(b[1:], g.stateHi)
	binary.LittleEndian.PutUint64(b[9:], g.stateLo)
	binary.LittleEndian.PutUint64(b[17:], g.incHi)
	binary.LittleEndian.PutUint64(b[25:], g.incLo)
	if g.hasUint32 {
		b[33] = 1
	}
	binary.LittleEndian.PutUint32(b[34:], g.uinteger)
	return b, nil
}

// ErrBadState is wrapped by UnmarshalBinary's errors.
var ErrBadState = errors.New("rng: invalid generator state")

// UnmarshalBinary restores a state written by MarshalBinary. On error the
// generator is left unchanged.
func (g *Generator) UnmarshalBinary(b []byte) error {
	if len(b) != stateLen {
		return fmt.Errorf("%w: length %d, want %d", ErrBadState, len(b), stateLen)
	}
	if b[0] != stateVersion {
		return fmt.Errorf("%w: format version %d, want %d", ErrBadState, b[0], stateVersion)
	}
	incLo := binary.LittleEndian.Uint64(b[25:])
	if incLo&1 == 0 {
		return fmt.Errorf("%w: increment is even, PCG64 requires it odd", ErrBadState)
	}
	if b[33] > 1 {
		return fmt.Errorf("%w: buffered-half flag is %d, want 0 or 1", ErrBadState, b[33])
	}
	g.stateHi = binary.LittleEndian.Uint64(b[1:])
	g.stateLo = binary.LittleEndian.Uint64(b[9:])
	g.incHi = binary.LittleEndian.Uint64(b[17:])
	g.incLo = incLo
	g.hasUint32 = b[33] == 1
	g.uinteger = binary.LittleEndian.Uint32(b[34:])
	return nil
}
