package ppo

/*
#include <stdlib.h>
// Defined in gotch's compiled C wrapper (third_party/gotch/libtch/torch_api.cpp),
// which every binary that imports gotch links; gotch v0.7.0 has no Go wrapper.
void at_set_num_threads(int n_threads);
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	lib "github.com/sugarme/gotch/libtch"
)

// This file is the trainer's thin layer over libtorch. It calls gotch's
// libtch wrappers (one cgo call per op) directly instead of gotch's ts
// package because, in gotch v0.7.0, every ts op allocates its output slot
// with C.malloc(0) and never frees it (a leak of one small allocation per
// op: hundreds of MB over a million-frame run), reports failures through
// log.Fatal in the Must variants, and reads the error string from a
// thread-local in a separate cgo call. Here one C-allocated output slot is
// reused, a failed op is detected from the untouched slot (no extra call),
// and errors are sticky: after the first failure every op is a no-op that
// returns nil and the session reports the error once. Callers must run a
// session's ops on one OS thread (runtime.LockOSThread), because libtorch's
// last-error string and grad mode are thread-local.

// tensor is a libtorch tensor handle (a torch::Tensor*). Handles are owned:
// every handle an op returns must be released with free.
type tensor = lib.Ctensor

// dtypeFloat is libtorch's ScalarType for float32 (c10::ScalarType::Float).
const dtypeFloat = 6

// setTorchThreads sets libtorch's intra-op thread count (process-wide).
func setTorchThreads(n int) {
	if n > 0 {
		C.at_set_num_threads(C.int(n))
	}
}

// session issues libtorch ops with sticky error handling and counts live
// handles so tests can assert that nothing leaks.
type session struct {
	out  *tensor // C-allocated output slot reused by every op
	err  error
	live int // handles created and not yet freed
}

func newSession() *session {
	p := (*tensor)(C.malloc(C.size_t(unsafe.Sizeof(uintptr(0)))))
	return &session{out: p}
}

// close releases the output slot. Tensors must have been freed before.
func (s *session) close() {
	if s.out != nil {
		C.free(unsafe.Pointer(s.out))
		s.out = nil
	}
}

// lastErr fetches and clears libtorch's thread-local error string.
func lastErr() error {
	p := (*C.char)(unsafe.Pointer(lib.GetAndResetLastErr()))
	if p == nil {
		return nil
	}
	msg := C.GoString(p)
	C.free(unsafe.Pointer(p))
	return errors.New(msg)
}

// fail records the first error.
func (s *session) fail(op string, err error) {
	if s.err == nil {
		if err == nil {
			err = errors.New("unknown libtorch error")
		}
		s.err = fmt.Errorf("libtorch %s: %w", op, err)
	}
}

// take reads the output slot after an op.
func (s *session) take(op string) tensor {
	r := *s.out
	if r == nil {
		s.fail(op, lastErr())
		return nil
	}
	s.live++
	return r
}

// begin prepares the output slot; it reports false when a previous op failed.
func (s *session) begin(args ...tensor) bool {
	if s.err != nil {
		return false
	}
	for _, a := range args {
		if a == nil {
			s.fail("op", errors.New("nil tensor argument"))
			return false
		}
	}
	*s.out = nil
	return true
}

// free releases a handle (nil is ignored).
func (s *session) free(ts ...tensor) {
	for _, t := range ts {
		if t != nil {
			lib.AtFree(t)
			s.live--
		}
	}
}

// fromFloat32 copies data into a new float32 tensor of the given shape.
func (s *session) fromFloat32(data []float32, shape ...int64) tensor {
	if s.err != nil {
		return nil
	}
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	if int64(len(data)) != n || n == 0 {
		s.fail("tensor_of_data", fmt.Errorf("%d values for shape %v", len(data), shape))
		return nil
	}
	t := lib.AtTensorOfData(unsafe.Pointer(&data[0]), shape, uint(len(shape)), 4, dtypeFloat)
	if t == nil {
		s.fail("tensor_of_data", lastErr())
		return nil
	}
	s.live++
	runtime.KeepAlive(data)
	return t
}

// copyTo copies len(dst) float32 values out of a contiguous-able tensor.
func (s *session) copyTo(t tensor, dst []float32) {
	if !s.begin(t) || len(dst) == 0 {
		return
	}
	lib.AtCopyData(t, unsafe.Pointer(&dst[0]), uint(len(dst)), 4)
	if err := lastErr(); err != nil {
		s.fail("copy_data", err)
	}
}

// item returns the first value of a float32 tensor.
func (s *session) item(t tensor) float64 {
	var v [1]float32
	s.copyTo(t, v[:])
	return float64(v[0])
}

// copyInto copies src into dst in place (at_copy_).
func (s *session) copyInto(dst, src tensor) {
	if !s.begin(dst, src) {
		return
	}
	lib.AtCopy_(dst, src)
	if err := lastErr(); err != nil {
		s.fail("copy_", err)
	}
}

// scalar is a libtorch Scalar handle, owned by the caller.
type scalar = lib.Cscalar

func newScalar(v float64) scalar { return lib.AtsFloat(v) }
func freeScalar(c scalar)        { lib.AtsFree(c) }

// The ops below mirror the libtorch functions of the same names. In-place
// ops (trailing underscore) also return a new handle, which is freed here.

// unary runs a one-tensor op, f(out slot, a), as op.
func (s *session) unary(op string, f func(*tensor, tensor), a tensor) tensor {
	if !s.begin(a) {
		return nil
	}
	f(s.out, a)
	return s.take(op)
}

// binary runs a two-tensor op, f(out slot, a, b), as op.
func (s *session) binary(op string, f func(*tensor, tensor, tensor), a, b tensor) tensor {
	if !s.begin(a, b) {
		return nil
	}
	f(s.out, a, b)
	return s.take(op)
}

func (s *session) addmm(b, x, w tensor) tensor {
	if !s.begin(b, x, w) {
		return nil
	}
	lib.AtgAddmm(s.out, b, x, w)
	return s.take("addmm")
}

func (s *session) tanh(a tensor) tensor       { return s.unary("tanh", lib.AtgTanh, a) }
func (s *session) relu(a tensor) tensor       { return s.unary("relu", lib.AtgRelu, a) }
func (s *session) add(a, b tensor) tensor     { return s.binary("add", lib.AtgAdd, a, b) }
func (s *session) sub(a, b tensor) tensor     { return s.binary("sub", lib.AtgSub, a, b) }
func (s *session) mul(a, b tensor) tensor     { return s.binary("mul", lib.AtgMul, a, b) }
func (s *session) maximum(a, b tensor) tensor { return s.binary("maximum", lib.AtgMaximum, a, b) }

func (s *session) mulScalar(a tensor, c scalar) tensor {
	if !s.begin(a) {
		return nil
	}
	lib.AtgMulScalar(s.out, a, c)
	return s.take("mul_scalar")
}

func (s *session) exp(a tensor) tensor    { return s.unary("exp", lib.AtgExp, a) }
func (s *session) neg(a tensor) tensor    { return s.unary("neg", lib.AtgNeg, a) }
func (s *session) square(a tensor) tensor { return s.unary("square", lib.AtgSquare, a) }
func (s *session) sqrt(a tensor) tensor   { return s.unary("sqrt", lib.AtgSqrt, a) }

func (s *session) clamp(a tensor, lo, hi scalar) tensor {
	if !s.begin(a) {
		return nil
	}
	lib.AtgClamp(s.out, a, lo, hi)
	return s.take("clamp")
}

// sum reduces all elements to a 0-d float32 tensor.
func (s *session) sum(a tensor) tensor {
	if !s.begin(a) {
		return nil
	}
	lib.AtgSum(s.out, a, dtypeFloat)
	return s.take("sum")
}

// mean reduces all elements to a 0-d float32 tensor.
func (s *session) mean(a tensor) tensor {
	if !s.begin(a) {
		return nil
	}
	lib.AtgMean(s.out, a, dtypeFloat)
	return s.take("mean")
}

// sumDim sums over one dimension (not kept).
func (s *session) sumDim(a tensor, dim int64) tensor {
	if !s.begin(a) {
		return nil
	}
	d := [1]int64{dim}
	lib.AtgSumDimIntlist(s.out, a, d[:], 1, 0, dtypeFloat)
	return s.take("sum_dim")
}

// cat concatenates 1-D tensors.
func (s *session) cat(ts []tensor) tensor {
	if !s.begin(ts...) {
		return nil
	}
	lib.AtgCat(s.out, ts, len(ts), 0)
	return s.take("cat")
}

// dot is the inner product of two 1-D tensors; norm, the 2-norm of all
// elements.
func (s *session) dot(a, b tensor) tensor { return s.binary("dot", lib.AtgDot, a, b) }
func (s *session) norm(a tensor) tensor   { return s.unary("norm", lib.AtgNorm, a) }

func (s *session) view(a tensor, shape ...int64) tensor {
	if !s.begin(a) {
		return nil
	}
	lib.AtgView(s.out, a, shape, len(shape))
	return s.take("view")
}

func (s *session) detach(a tensor) tensor { return s.unary("detach", lib.AtgDetach, a) }

// clone returns a detached copy with its own storage.
func (s *session) clone(a tensor) tensor {
	d := s.detach(a)
	if d == nil {
		return nil
	}
	if !s.begin(d) {
		s.free(d)
		return nil
	}
	lib.AtgZerosLike(s.out, d)
	c := s.take("zeros_like")
	s.copyInto(c, d)
	s.free(d)
	return c
}

// setRequiresGrad marks a leaf tensor; the returned handle aliases a.
func (s *session) setRequiresGrad(a tensor) tensor {
	if !s.begin(a) {
		return nil
	}
	lib.AtgSetRequiresGrad(s.out, a, 1)
	return s.take("set_requires_grad")
}

// split splits a along dim 0 into len(sizes) views, appended to dst.
func (s *session) split(a tensor, sizes []int64, dst []tensor) []tensor {
	if !s.begin(a) {
		return dst
	}
	arr := lib.AtgSplitWithSizes(a, sizes, len(sizes), 0)
	if arr == nil {
		s.fail("split_with_sizes", lastErr())
		return dst
	}
	parts := unsafe.Slice(arr, len(sizes)+1)
	for i := range sizes {
		dst = append(dst, parts[i])
		s.live++
	}
	C.free(unsafe.Pointer(arr))
	return dst
}

// grad returns d(loss)/d(leaf) without accumulating into leaf.grad.
func (s *session) grad(loss, leaf tensor) tensor {
	if !s.begin(loss, leaf) {
		return nil
	}
	in := (*tensor)(C.malloc(C.size_t(3 * unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(in))
	slots := unsafe.Slice(in, 3)
	slots[0], slots[1], slots[2] = loss, leaf, nil
	lib.AtRunBackward(&slots[0], 1, &slots[1], 1, &slots[2], 0, 0)
	if err := lastErr(); err != nil {
		s.fail("backward", err)
		return nil
	}
	if slots[2] == nil {
		s.fail("backward", errors.New("no gradient returned"))
		return nil
	}
	s.live++
	return slots[2]
}

// In-place ops: the op's extra handle is released immediately.

func (s *session) inplace(op string) {
	if r := s.take(op); r != nil {
		s.free(r)
	}
}

func (s *session) mulScalar_(a tensor, c scalar) {
	if s.begin(a) {
		lib.AtgMulScalar_(s.out, a, c)
		s.inplace("mul_scalar_")
	}
}

func (s *session) addScalar_(a tensor, c scalar) {
	if s.begin(a) {
		lib.AtgAddScalar_(s.out, a, c)
		s.inplace("add_scalar_")
	}
}

func (s *session) lerp_(a, end tensor, w scalar) {
	if s.begin(a, end) {
		lib.AtgLerp_(s.out, a, end, w)
		s.inplace("lerp_")
	}
}

func (s *session) addcdiv_(a, t1, t2 tensor) {
	if s.begin(a, t1, t2) {
		lib.AtgAddcdiv_(s.out, a, t1, t2)
		s.inplace("addcdiv_")
	}
}
