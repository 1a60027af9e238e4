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
	if k := f.Kernels(); !strings.HasPrefix(k, "OpenBLAS ") {
		t.Errorf("Kernels() = %q", k)
	}
}

// BenchmarkCFloor is the floor of BenchmarkMinibatchUpdate/64x64 in
// package ppo: HalfCheetah's sizes (17 observations, 6 actions), 64×64
// tanh networks, 64-row minibatches over a 2048-frame batch (CleanRL's
// 2048-frame batch in 32 minibatches). Its sub-benchmark is named by the
// kernels it ran on (OpenBLAS's core, the tanh kernel).
//
//	OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2 \
//	  go test -run '^$' -bench CFloor -benchtime 20000x ./ppo/internal/cfloor
func BenchmarkCFloor(b *testing.B) {
	f, err := New(17, 6, 64, 64, 2048, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
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
