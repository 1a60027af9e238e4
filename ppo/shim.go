package ppo

/*
#cgo CXXFLAGS: -std=c++17 -O3 -w -D_GLIBCXX_USE_CXX11_ABI=1
#cgo LDFLAGS: -lstdc++ -ltorch_cpu -lc10 -l:libblas.so.3 -l:libsleef.so.3
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// shim is the minibatch step in libtorch's C++ API (shim.cpp): forward,
// backward and Adam each take one cgo call, over parameter and gradient
// views built once. It aliases the learner's θ, m and v tensors.
type shim struct {
	p *C.ppo_shim
}

// shimErr converts and frees an error string from the shim.
func shimErr(op string, e *C.char) error {
	if e == nil {
		return nil
	}
	msg := C.GoString(e)
	C.free(unsafe.Pointer(e))
	return fmt.Errorf("libtorch %s: %w", op, errors.New(msg))
}

func newShim(l *layout, theta, m, v tensor) (*shim, error) {
	var desc []int64
	for _, ls := range [][]layer{l.actor, l.critic} {
		for _, ly := range ls {
			desc = append(desc, int64(l.offsets[ly.w]), int64(ly.in), int64(ly.out), int64(l.offsets[ly.b]))
		}
	}
	desc = append(desc, int64(l.offsets[l.logStd]), int64(l.actDim), int64(l.total))
	relu := 0
	if l.act == "relu" {
		relu = 1
	}
	var p *C.ppo_shim
	e := C.ppo_shim_new(unsafe.Pointer(theta), unsafe.Pointer(m), unsafe.Pointer(v),
		(*C.int64_t)(unsafe.Pointer(&desc[0])), C.int(len(l.actor)), C.int(len(l.critic)), C.int(relu), &p)
	if err := shimErr("shim", e); err != nil {
		return nil, err
	}
	return &shim{p: p}, nil
}

func (sh *shim) close() {
	if sh.p != nil {
		C.ppo_shim_free(sh.p)
		sh.p = nil
	}
}

// setHalves sets the number of row blocks (1 or 2) the update's forward and
// backward are computed in, concurrently (ppo.update_threads). It refuses 2
// when the loaded BLAS is not safe to call from two threads at once.
func (sh *shim) setHalves(n int) error {
	return shimErr("shim halves", C.ppo_shim_set_halves(sh.p, C.int(n)))
}

// forward runs both networks on B rows of x; mu (actor skipped), v
// (critic skipped) and logStd may be nil. split lets the update's forward
// run in two row blocks when setHalves(2) is in force; inference passes false.
func (sh *shim) forward(x []float32, B int, split bool, mu, v, logStd []float32) error {
	if B < 1 || len(x) < B {
		return fmt.Errorf("ppo: forward on %d rows (%d inputs)", B, len(x))
	}
	var pmu, pv, pls *C.float
	if mu != nil {
		pmu = (*C.float)(unsafe.Pointer(&mu[0]))
	}
	if v != nil {
		pv = (*C.float)(unsafe.Pointer(&v[0]))
	}
	if logStd != nil {
		pls = (*C.float)(unsafe.Pointer(&logStd[0]))
	}
	sp := 0
	if split {
		sp = 1
	}
	return shimErr("forward", C.ppo_shim_forward(sh.p, (*C.float)(unsafe.Pointer(&x[0])), C.int64_t(B), C.int(sp),
		pmu, pv, pls))
}

// backward backpropagates output gradients into the shim's gradient vector
// and returns its norm.
func (sh *shim) backward(gmu, gv, gls []float32) (float64, error) {
	var n C.double
	e := C.ppo_shim_backward(sh.p, (*C.float)(unsafe.Pointer(&gmu[0])), (*C.float)(unsafe.Pointer(&gv[0])),
		(*C.float)(unsafe.Pointer(&gls[0])), &n)
	return float64(n), shimErr("backward", e)
}

// step scales the gradient (g, or the shim's own when g is nil) by coef when
// scale is set and takes one Adam step with the given coefficients.
func (sh *shim) step(g tensor, scale bool, coef, w1, w2, c1, c2 float64) error {
	sc := 0
	if scale {
		sc = 1
	}
	return shimErr("adam", C.ppo_shim_step(sh.p, unsafe.Pointer(g), C.int(sc), C.double(coef),
		C.double(w1), C.double(w2), C.double(c1), C.double(c2)))
}

// grad returns a new handle aliasing the shim's gradient vector.
func (sh *shim) grad() tensor { return tensor(C.ppo_shim_grad(sh.p)) }

// blasInfo reports the loaded BLAS: OpenBLAS's thread count (0 when the BLAS
// is not OpenBLAS; shim.cpp sets it to 1 at process start) and
// openblas_get_config()'s string ("" when not OpenBLAS).
func blasInfo() (threads int, config string) {
	var n C.int
	p := C.ppo_shim_blas(&n)
	if p != nil {
		config = C.GoString(p)
		C.free(unsafe.Pointer(p))
	}
	return int(n), config
}

// gemmCheck compares the shim's direct sgemm calls (atenGemm, shim.cpp)
// with ATen's addmm, mm_out and mm bit for bit over the networks' shapes:
// how many products were compared, how many the shim leaves to ATen, and
// how many differ.
func gemmCheck() (compared, declined, mismatched int64, err error) {
	var c, d, m C.int64_t
	e := C.ppo_shim_gemm_check(&c, &d, &m)
	return int64(c), int64(d), int64(m), shimErr("gemm check", e)
}

// tanhCheck compares the shim's tanh and tanh backward with ATen's bit for
// bit over random and special values: how many were compared, how many
// differ, and whether the shim ran its own paths (ATen on AVX2) or ATen's
// ops.
func tanhCheck() (compared, mismatched int64, direct bool, err error) {
	var c, m C.int64_t
	var d C.int
	e := C.ppo_shim_tanh_check(&c, &m, &d)
	return int64(c), int64(m), d != 0, shimErr("tanh check", e)
}

// atenCapability is the vectorisation ATen's kernels run ("AVX2",
// "AVX512", "NO AVX"; "" when libtorch does not say). ATen fixes it at its
// first vectorised op, from ATEN_CPU_CAPABILITY; asking fixes it too.
func atenCapability() string {
	p := C.ppo_shim_aten_capability()
	if p == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(p))
	return C.GoString(p)
}
