// Package cfloor is the floor of one PPO minibatch update, a measuring
// stick for package ppo's libtorch shim (scripts/bench.sh): CleanRL's
// ppo_continuous_action update computed exactly (separate tanh actor and
// critic, state-independent log std, clipped surrogate, clipped value
// loss, entropy term, per-minibatch advantage normalisation, global
// gradient-norm clipping, Adam) with a hand-derived backward pass in plain
// C, its matrix products in register-blocked loops (gemm.c: at 64×64 they
// beat a general sgemm, which packs its operands first) and its tanh
// through glibc's vector tanhf (libmvec), every buffer allocated once, built with
// -O3 -march=native -ffast-math. Its parameter vector has
// package ppo's layout; ppo's TestCFloorMatchesAutograd checks its
// gradient and its Adam step against libtorch's autograd. It is not
// product code: nothing but tests and benchmarks use it.
//
// Which kernels it runs follows the process's setting as ATen's would: the
// floor takes 16-float AVX-512 products and tanh when the
// CPU has AVX-512 unless ATEN_CPU_CAPABILITY is avx2 or default (the pinned
// setting), and 8-float FMA products and the AVX2 tanh otherwise.
// UseBLAS switches the products to OpenBLAS's cblas_sgemm, whose core
// OPENBLAS_CORETYPE chooses, for comparison. Kernels names them.
package cfloor

/*
#cgo CFLAGS: -O3 -march=native -ffast-math
#cgo LDFLAGS: -l:libopenblas.so.0 -lm
#include <stdlib.h>
#include "cfloor.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Hyper are the settings of one update (CleanRL's names in brackets).
type Hyper struct {
	Clip         float32 // ε of the surrogate and of the value clip [clip_coef]
	ValueCoef    float32 // [vf_coef]
	EntropyCoef  float32 // [ent_coef]
	MaxGradNorm  float32 // global gradient-norm clip, ≤ 0 for none [max_grad_norm]
	LR           float32 // Adam step size [learning_rate]
	Beta1, Beta2 float32 // Adam's moment decays
	Eps          float32 // Adam's ε
	ClipValue    bool    // clipped value loss [clip_vloss]
	NormAdv      bool    // per-minibatch advantage normalisation [norm_adv]
}

// CleanRL is CleanRL's default update: ε 0.2, value coefficient 0.5,
// entropy coefficient 0, gradient norm 0.5, Adam 3e-4 (β 0.9, 0.999,
// ε 1e-5), value clipping and advantage normalisation on.
var CleanRL = Hyper{Clip: 0.2, ValueCoef: 0.5, MaxGradNorm: 0.5, LR: 3e-4, Beta1: 0.9, Beta2: 0.999, Eps: 1e-5,
	ClipValue: true, NormAdv: true}

// Terms are one minibatch's loss values.
type Terms struct {
	Loss, PG, Value, Entropy, KLSum float64
	Clipped                         int
}

// Floor is one floor learner: networks, Adam state, a batch, and the
// buffers of one minibatch.
type Floor struct {
	p           *C.cfloor
	rows, batch int
	obs, act    int
}

// New makes a floor with observation size obs, action size act, two hidden
// layers of hidden units, minibatches of rows rows over a batch of batch
// frames, CleanRL's settings, and parameters and a synthetic batch drawn
// from seed.
func New(obs, act, hidden, rows, batch int, seed uint64) (*Floor, error) {
	if obs < 1 || act < 1 || hidden < 1 || rows < 1 || batch < rows {
		return nil, errors.New("cfloor: sizes must be >= 1 and batch >= rows")
	}
	f := &Floor{p: C.cfloor_new(C.int(obs), C.int(act), C.int(hidden), C.int(rows), C.int(batch), C.uint64_t(seed)),
		rows: rows, batch: batch, obs: obs, act: act}
	f.SetHyper(CleanRL)
	return f, nil
}

// Close frees the floor.
func (f *Floor) Close() {
	C.cfloor_free(f.p)
	f.p = nil
}

// Kernels names the float kernels the floor runs: its products' (the
// loops' width, or OpenBLAS's core) and the tanh kernel's.
func (f *Floor) Kernels() string { return C.GoString(C.cfloor_kernels(f.p)) }

// UseProducts chooses the floor's matrix products: OpenBLAS's cblas_sgemm
// (blas), or the register-blocked loops with 16-float vectors (wide, on a
// CPU with AVX-512) or 8-float ones.
func (f *Floor) UseProducts(blas, wide bool) error {
	if C.cfloor_set_products(f.p, cbool(blas), cbool(wide)) != 0 {
		return errors.New("cfloor: 16-float products need a CPU with AVX-512")
	}
	return nil
}

// SetHyper sets the update's settings.
func (f *Floor) SetHyper(h Hyper) {
	ch := C.cfloor_hyper{clip: C.float(h.Clip), vcoef: C.float(h.ValueCoef), entcoef: C.float(h.EntropyCoef),
		maxgrad: C.float(h.MaxGradNorm), lr: C.float(h.LR), beta1: C.float(h.Beta1), beta2: C.float(h.Beta2),
		eps: C.float(h.Eps), clipv: cbool(h.ClipValue), normadv: cbool(h.NormAdv)}
	C.cfloor_set_hyper(f.p, &ch)
}

// SetBatch copies a batch in: observations (batch×obs), actions
// (batch×act), and per frame log π_old, V_old, the advantage and the value
// target.
func (f *Floor) SetBatch(obs, act, logp, val, adv, ret []float32) error {
	n := f.batch
	for _, c := range []struct {
		name string
		got  int
		want int
	}{{"obs", len(obs), n * f.obs}, {"act", len(act), n * f.act}, {"logp", len(logp), n},
		{"val", len(val), n}, {"adv", len(adv), n}, {"ret", len(ret), n}} {
		if c.got != c.want {
			return fmt.Errorf("cfloor: SetBatch: %s has %d values, want %d", c.name, c.got, c.want)
		}
	}
	C.cfloor_set_batch(f.p, (*C.float)(&obs[0]), (*C.float)(&act[0]), (*C.float)(&logp[0]), (*C.float)(&val[0]),
		(*C.float)(&adv[0]), (*C.float)(&ret[0]))
	return nil
}

// Gradient computes the loss of the frames idx (one minibatch) and its
// unclipped gradient (Grad), and returns the loss terms and the gradient's
// 2-norm.
func (f *Floor) Gradient(idx []int) (Terms, float32, error) {
	if len(idx) != f.rows {
		return Terms{}, 0, fmt.Errorf("cfloor: Gradient: %d frames, the floor's minibatch has %d", len(idx), f.rows)
	}
	ci := make([]C.int, len(idx))
	for k, i := range idx {
		if i < 0 || i >= f.batch {
			return Terms{}, 0, fmt.Errorf("cfloor: Gradient: frame %d outside the batch of %d", i, f.batch)
		}
		ci[k] = C.int(i)
	}
	var t C.cfloor_terms
	gn := C.cfloor_gradient(f.p, &ci[0], &t)
	return Terms{Loss: float64(t.loss), PG: float64(t.pg), Value: float64(t.v), Entropy: float64(t.entropy),
		KLSum: float64(t.klsum), Clipped: int(t.clipped)}, float32(gn), nil
}

// Step clips the gradient by its norm gnorm (as Gradient returned it) and
// takes one Adam step.
func (f *Floor) Step(gnorm float32) { C.cfloor_step(f.p, C.float(gnorm)) }

// SetAdamStep sets Adam's step count (the moments are M and V).
func (f *Floor) SetAdamStep(t int64) { C.cfloor_set_adam(f.p, C.int64_t(t)) }

// Run takes n minibatch steps over the floor's batch (a new shuffle at
// every epoch) and returns the last minibatch's loss.
func (f *Floor) Run(n int) float64 { return float64(C.cfloor_run(f.p, C.int(n))) }

// cbool is v as C's 0 or 1.
func cbool(v bool) C.int {
	if v {
		return 1
	}
	return 0
}

func (f *Floor) vec(p *C.float) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(p)), int(C.cfloor_params(f.p)))
}

// Theta is the parameter vector, in package ppo's layout (aliasing C
// memory: valid until Close).
func (f *Floor) Theta() []float32 { return f.vec(C.cfloor_theta(f.p)) }

// Grad is the gradient of the latest Gradient or Run step (aliasing C
// memory).
func (f *Floor) Grad() []float32 { return f.vec(C.cfloor_grad(f.p)) }

// M is Adam's first moment (aliasing C memory).
func (f *Floor) M() []float32 { return f.vec(C.cfloor_m(f.p)) }

// V is Adam's second moment (aliasing C memory).
func (f *Floor) V() []float32 { return f.vec(C.cfloor_v(f.p)) }
