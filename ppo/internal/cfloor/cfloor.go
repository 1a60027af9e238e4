// Package cfloor is the C floor of one PPO minibatch step, a measuring
// stick for package ppo's libtorch shim (scripts/bench.sh, results/speed): a
// tanh actor and critic (two hidden layers each), their forward pass, a
// hand-written backward pass and Adam with gradient-norm clipping, in plain
// C over OpenBLAS's cblas_sgemm and Sleef's AVX2 tanh, with every buffer
// allocated once. It is not product code: nothing but its benchmark uses it.
package cfloor

/*
#cgo CFLAGS: -O3 -mavx2
#cgo LDFLAGS: -l:libopenblas.so.0 -l:libsleef.so.3 -lm
#include <stdlib.h>
#include "cfloor.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Floor is one floor learner: networks, Adam state, a batch of random
// inputs and targets, and the buffers of one minibatch.
type Floor struct {
	p *C.cfloor
}

// New makes a floor with observation size obs, action size act, two hidden
// layers of hidden units, minibatches of rows rows over a batch of batch
// frames, and parameters drawn from seed.
func New(obs, act, hidden, rows, batch int, seed uint64) (*Floor, error) {
	if obs < 1 || act < 1 || hidden < 1 || rows < 1 || batch < rows {
		return nil, errors.New("cfloor: sizes must be >= 1 and batch >= rows")
	}
	return &Floor{p: C.cfloor_new(C.int(obs), C.int(act), C.int(hidden), C.int(rows), C.int(batch), C.uint64_t(seed))}, nil
}

// Close frees the floor.
func (f *Floor) Close() {
	C.cfloor_free(f.p)
	f.p = nil
}

// Run takes n minibatch steps (a new shuffle at every epoch) and returns
// the last minibatch's loss.
func (f *Floor) Run(n int) float64 { return float64(C.cfloor_run(f.p, C.int(n))) }

// Loss computes minibatch k's loss and its gradient (Grad) without a step.
func (f *Floor) Loss(k int) float64 { return float64(C.cfloor_loss(f.p, C.int(k))) }

// Theta is the parameter vector (aliasing C memory: valid until Close).
func (f *Floor) Theta() []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(C.cfloor_theta(f.p))), int(C.cfloor_params(f.p)))
}

// Grad is the gradient vector of the latest Loss or Run step (aliasing C
// memory: valid until Close).
func (f *Floor) Grad() []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(C.cfloor_grad(f.p))), int(C.cfloor_params(f.p)))
}
