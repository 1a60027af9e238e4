package cfloor

import (
	"math"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInputsChecked: Gradient and SetBatch refuse inputs of the wrong size
// with an error naming them, and Run's steps keep the loss finite. (The
// floor's gradient and Adam step are checked against libtorch's autograd
// by TestCFloorMatchesAutograd in package ppo, which owns the reference.)
func TestInputsChecked(t *testing.T) {
	f, err := New(3, 2, 8, 4, 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"short minibatch", func() error { _, _, err := f.Gradient([]int{0, 1, 2}); return err }, "3 frames"},
		{"frame outside", func() error { _, _, err := f.Gradient([]int{0, 1, 2, 16}); return err }, "frame 16"},
		{"short obs", func() error {
			z := make([]float32, 16)
			return f.SetBatch(make([]float32, 47), make([]float32, 32), z, z, z, z)
		}, "obs has 47"},
		{"good minibatch", func() error { _, _, err := f.Gradient([]int{0, 5, 9, 15}); return err }, ""},
	} {
		err := tc.call()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := New(3, 2, 8, 17, 16, 1); err == nil {
		t.Error("New accepted a minibatch larger than the batch")
	}
	if loss := f.Run(50); math.IsNaN(loss) || math.IsInf(loss, 0) {
		t.Fatalf("50 steps gave loss %v", loss)
	}
	if k := f.Kernels(); !strings.HasPrefix(k, "products avx") {
		t.Errorf("Kernels() = %q", k)
	}
}

// TestProductsMatchBLAS: the register-blocked products (both widths, where
// the CPU has AVX-512) give the gradient OpenBLAS's sgemm gives, on the
// benchmark's sizes and on sizes that take every path of gemm.c (odd row
// counts, narrow outputs, inner dimensions that are no multiple of the
// width fall back to the BLAS), to float32 rounding.
func TestProductsMatchBLAS(t *testing.T) {
	for _, sz := range []struct{ obs, act, hidden, rows, batch int }{
		{17, 6, 64, 64, 2048}, {11, 3, 64, 37, 256}, {376, 17, 64, 64, 512}, {8, 2, 16, 5, 40}, {4, 1, 33, 9, 64},
	} {
		for _, wide := range []bool{false, true} {
			f, err := New(sz.obs, sz.act, sz.hidden, sz.rows, sz.batch, 3)
			if err != nil {
				t.Fatal(err)
			}
			idx := make([]int, sz.rows)
			for i := range idx {
				idx[i] = (7*i + 3) % sz.batch
			}
			if err := f.UseProducts(true, false); err != nil {
				t.Fatal(err)
			}
			_, gnBLAS, _ := f.Gradient(idx)
			ref := append([]float32(nil), f.Grad()...)
			if err := f.UseProducts(false, wide); err != nil {
				f.Close()
				t.Logf("%v wide: %v", sz, err)
				continue
			}
			_, gn, _ := f.Gradient(idx)
			var worst, scale float64
			for i, g := range f.Grad() {
				worst = math.Max(worst, math.Abs(float64(g-ref[i])))
				scale = math.Max(scale, math.Abs(float64(ref[i])))
			}
			if rel := worst / scale; rel > 1e-5 || math.Abs(float64(gn-gnBLAS)) > 1e-5*float64(gnBLAS) {
				t.Errorf("%v, %s: gradient differs from BLAS's by %.3g of its largest element (norm %g against %g)",
					sz, f.Kernels(), rel, gn, gnBLAS)
			}
			f.Close()
		}
	}
}

// BenchmarkCFloor is the floor of BenchmarkMinibatchUpdate/64x64 in
// package ppo: HalfCheetah's sizes (17 observations, 6 actions), 64×64
// tanh networks, 64-row minibatches over a 2048-frame batch (CleanRL's
// 2048-frame batch in 32 minibatches). Its sub-benchmark is named by the
// kernels it ran on (the products', the tanh kernel). BenchmarkCFloorBLAS
// is the same with OpenBLAS's sgemm for the products, for comparison.
//
//	OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2 \
//	  go test -run '^$' -bench CFloor -benchtime 20000x ./ppo/internal/cfloor
func BenchmarkCFloor(b *testing.B) { benchFloor(b, false) }

// BenchmarkCFloorBLAS is BenchmarkCFloor with OpenBLAS's products.
func BenchmarkCFloorBLAS(b *testing.B) { benchFloor(b, true) }

func benchFloor(b *testing.B, blas bool) {
	f, err := New(17, 6, 64, 64, 2048, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if blas {
		if err := f.UseProducts(true, false); err != nil {
			b.Fatal(err)
		}
	}
	name := strings.NewReplacer(" ", "", ",", "+").Replace(f.Kernels())
	b.Run(name, func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		f.Run(64)
		start, cpu0 := time.Now(), threadCPU()
		b.ResetTimer()
		f.Run(b.N)
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/1e3, "µs/minibatch")
		b.ReportMetric(float64((threadCPU()-cpu0).Nanoseconds())/float64(b.N)/1e3, "cpu-µs/minibatch")
	})
}

// threadCPU is the calling OS thread's CPU time so far (Linux's
// RUSAGE_THREAD; 0 if unknown).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil { // 1: RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
