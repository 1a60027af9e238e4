package ppo

import (
	"math"
	"testing"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/nn"
	"github.com/sugarme/gotch/ts"
)

// TestTorchLinkage runs a forward pass, a backward pass and Adam steps through
// gotch on Debian's libtorch: a 17→64→tanh→1 MLP fitted to a fixed linear
// target must lower its MSE and move its parameters.
func TestTorchLinkage(t *testing.T) {
	vs := nn.NewVarStore(gotch.CPU)
	root := vs.Root()
	l1 := nn.NewLinear(root.Sub("l1"), 17, 64, nn.DefaultLinearConfig())
	l2 := nn.NewLinear(root.Sub("l2"), 64, 1, nn.DefaultLinearConfig())
	opt, err := nn.DefaultAdamConfig().Build(vs, 1e-2)
	if err != nil {
		t.Fatalf("build Adam: %v", err)
	}
	// Deterministic data from Go: gotch v0.7.0 exposes no libtorch seed.
	xs := make([]float32, 64*17)
	for i := range xs {
		xs[i] = float32(math.Sin(float64(i)*0.37) + 0.5*math.Cos(float64(i)*1.3))
	}
	x := ts.MustOfSlice(xs).MustView([]int64{64, 17}, true)
	ws := make([]float32, 17)
	for i := range ws {
		ws[i] = float32(i%5) - 2
	}
	w := ts.MustOfSlice(ws).MustView([]int64{17, 1}, true)
	y := x.MustMm(w, false).MustTanh(true)

	before := l2.Ws.MustDetach(false).MustMulScalar(ts.FloatScalar(1), true)
	loss := func() *ts.Tensor {
		h := l1.Forward(x)
		a := h.MustTanh(true)
		p := l2.Forward(a)
		a.MustDrop()
		l := p.MustMseLoss(y, 1, true) // reduction mean
		return l
	}
	first := loss()
	l0 := first.Float64Values()[0]
	if err := opt.BackwardStep(first); err != nil {
		t.Fatalf("backward/Adam step: %v", err)
	}
	first.MustDrop()
	var last float64
	for i := 0; i < 200; i++ {
		l := loss()
		last = l.Float64Values()[0]
		if err := opt.BackwardStep(l); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		l.MustDrop()
	}
	if !(last < 0.2*l0) {
		t.Fatalf("MSE went %.4g -> %.4g; want at least a 5x drop", l0, last)
	}
	moved := before.MustSub(l2.Ws, false).MustAbs(true).MustSum(gotch.Float, true).Float64Values()[0]
	if moved == 0 {
		t.Fatal("Adam left the output layer unchanged")
	}
	t.Logf("MSE %.4g -> %.4g after 201 Adam steps; output weights moved by %.4g (L1)", l0, last, moved)
}

// TestUnavailableOpErrors checks that an op the setup stubbed (absent from
// libtorch 1.13) returns an error instead of crashing.
func TestUnavailableOpErrors(t *testing.T) {
	x := ts.MustOnes([]int64{3}, gotch.Float, gotch.CPU)
	defer x.MustDrop()
	if _, err := x.Nansum(gotch.Float, false); err == nil {
		t.Fatal("nansum: want 'operation unavailable' error from the patched wrapper")
	}
}

// TestShimGemmMatchesATen: the shim's direct sgemm calls give the bits of
// ATen's addmm, mm_out and mm on every operand shape the networks use, so
// the minibatch step computes what it computed through ATen.
func TestShimGemmMatchesATen(t *testing.T) {
	compared, declined, mismatched, err := gemmCheck()
	if err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 {
		t.Fatalf("%d of %d products differ from ATen's", mismatched, compared)
	}
	if declined*10 > compared {
		t.Fatalf("the shim left %d of %d products to ATen", declined, compared)
	}
	t.Logf("%d products identical to ATen's (%d left to ATen)", compared-declined, declined)
}

// TestShimOpsMatchATen: when ATen runs AVX2, the shim's own tanh (Sleef's
// 8-lane kernel called directly), tanh backward (d·(1 − h²) with a fused
// multiply-add) and bias row sums (ATen's cascade order) give at::tanh's,
// at::tanh_backward_out's and at::sum_out's bits, on random and special
// values at every length tried (around the vector width and the
// networks' sizes) and, for the sums, every width.
func TestShimOpsMatchATen(t *testing.T) {
	compared, mismatched, direct, err := tanhCheck()
	if err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 {
		t.Fatalf("%d of %d tanh, tanh-backward and row-sum values differ from ATen's (the shim's own path: %v)", mismatched, compared, direct)
	}
	t.Logf("%d tanh, tanh-backward and row-sum values identical to ATen's; ATen %s, the shim's own path: %v", compared, atenCapability(), direct)
}
