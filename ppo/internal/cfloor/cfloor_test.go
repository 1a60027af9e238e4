package cfloor

import (
	"math"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestGradient: the hand-written backward pass matches central finite
// differences of the loss on a spread of parameters (every layer's weights
// and biases), so the floor does the work it claims.
func TestGradient(t *testing.T) {
	f, err := New(17, 6, 64, 64, 2048, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	theta := f.Theta()
	f.Loss(0)
	g := append([]float32(nil), f.Grad()...)
	checked := 0
	for i := 0; i < len(theta); i += 97 {
		const h = 1e-2
		old := theta[i]
		theta[i] = old + h
		up := f.Loss(0)
		theta[i] = old - h
		down := f.Loss(0)
		theta[i] = old
		num := (up - down) / (2 * h)
		if math.Abs(num-float64(g[i])) > 2e-3+0.05*math.Abs(num) {
			t.Errorf("parameter %d: backward %.6g, finite differences %.6g", i, g[i], num)
		}
		checked++
	}
	if loss := f.Run(200); !(loss < f.Loss(0)+10) || math.IsNaN(loss) {
		t.Fatalf("200 Adam steps gave loss %v", loss)
	}
	t.Logf("%d parameters checked", checked)
}

// BenchmarkCFloor is the C floor of BenchmarkMinibatchUpdate/64x64 in
// package ppo: HalfCheetah's sizes (17 observations, 6 actions), 64×64
// tanh networks, 64-row minibatches over a 2048-frame batch.
//
//	go test -run '^$' -bench CFloor -benchtime 20000x ./ppo/internal/cfloor
func BenchmarkCFloor(b *testing.B) {
	f, err := New(17, 6, 64, 64, 2048, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f.Run(64)
	start, cpu0 := time.Now(), threadCPU()
	b.ResetTimer()
	f.Run(b.N)
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/1e3, "µs/minibatch")
	b.ReportMetric(float64((threadCPU()-cpu0).Nanoseconds())/float64(b.N)/1e3, "cpu-µs/minibatch")
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
