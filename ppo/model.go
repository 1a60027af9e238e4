package ppo

import (
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// layer is one affine layer of an MLP: y = x·W + b with W stored [in, out]
// (the transpose of PyTorch's nn.Linear weight), as parameter segments.
type layer struct {
	in, out int
	w, b    int // segment indices of W and b
}

// layout is where every parameter lives in the flat parameter vector θ. The
// actor and critic are separate MLPs; the policy's state-independent log std
// sits between them. All parameters (actor, log std, critic) share one Adam,
// as in CleanRL's agent.parameters().
type layout struct {
	obsDim, actDim int
	act            string
	actor, critic  []layer
	logStd         int       // segment index of the log std
	sizes          []int64   // segment lengths, in θ order
	offsets        []int     // segment offsets in θ
	shapes         [][]int64 // segment shapes: [in, out] for weights, nil for vectors
	total          int       // len(θ)
}

func newLayout(obsDim, actDim int, hidden []int, activation string) *layout {
	l := &layout{obsDim: obsDim, actDim: actDim, act: activation}
	add := func(n int, shape []int64) int {
		l.sizes = append(l.sizes, int64(n))
		l.offsets = append(l.offsets, l.total)
		l.shapes = append(l.shapes, shape)
		l.total += n
		return len(l.sizes) - 1
	}
	mlp := func(outDim int) []layer {
		var ls []layer
		in := obsDim
		for _, h := range append(append([]int(nil), hidden...), outDim) {
			w := add(in*h, []int64{int64(in), int64(h)})
			b := add(h, nil)
			ls = append(ls, layer{in: in, out: h, w: w, b: b})
			in = h
		}
		return ls
	}
	l.actor = mlp(actDim)
	l.logStd = add(actDim, nil)
	l.critic = mlp(1)
	return l
}

// segment returns θ[segment i] as a slice of theta.
func (l *layout) segment(theta []float32, i int) []float32 {
	return theta[l.offsets[i] : l.offsets[i]+int(l.sizes[i])]
}

// initSettings are the initialisation constants (see ppoconfig.Config).
type initSettings struct {
	logStd, hidden, policy, value float64
}

func initSettingsOf(c ppoconfig.Config) initSettings {
	return initSettings{logStd: c.InitLogStd, hidden: c.InitGainHidden, policy: c.InitGainPolicy, value: c.InitGainValue}
}

// initParams returns θ initialised as CleanRL's layer_init: orthogonal
// weights with gain √2 (in.hidden) on hidden layers, 0.01 (in.policy) on the
// policy mean head and 1 (in.value) on the value head; zero biases; the log
// std set to in.logStd. All randomness comes from rng.
func (l *layout) initParams(rng *rand.Rand, in initSettings) []float32 {
	theta := make([]float32, l.total)
	initMLP := func(ls []layer, headGain float64) {
		for k, ly := range ls {
			gain := in.hidden
			if k == len(ls)-1 {
				gain = headGain
			}
			w := orthogonal(rng, ly.out, ly.in, gain) // PyTorch's [out, in]
			dst := l.segment(theta, ly.w)
			for o := 0; o < ly.out; o++ {
				for i := 0; i < ly.in; i++ {
					dst[i*ly.out+o] = float32(w.At(o, i)) // stored [in, out]
				}
			}
		}
	}
	initMLP(l.actor, in.policy)
	initMLP(l.critic, in.value)
	ls := l.segment(theta, l.logStd)
	for i := range ls {
		ls[i] = float32(in.logStd)
	}
	return theta
}

// orthogonal returns a rows×cols matrix drawn as torch.nn.init.orthogonal_:
// a standard normal matrix (transposed when rows < cols) is QR-factorised,
// Q's columns are multiplied by the signs of R's diagonal so the result is
// uniformly distributed, and the result is scaled by gain. The normal draws
// come from rng (Go), not from libtorch.
func orthogonal(rng *rand.Rand, rows, cols int, gain float64) *mat.Dense {
	m, n := rows, cols
	if rows < cols {
		m, n = cols, rows
	}
	a := mat.NewDense(m, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	out := mat.NewDense(m, n, nil)
	for j := 0; j < n; j++ {
		s := 1.0
		if r.At(j, j) < 0 {
			s = -1
		}
		for i := 0; i < m; i++ {
			out.Set(i, j, gain*s*q.At(i, j))
		}
	}
	if rows < cols {
		return mat.DenseCopyOf(out.T())
	}
	return out
}

// params splits θ into per-segment tensors (weights viewed as [in, out]).
// The views keep θ's autograd history when θ requires grad. Free them with
// s.free(ps...).
func (l *layout) params(s *session, theta tensor, dst []tensor) []tensor {
	base := len(dst)
	dst = s.split(theta, l.sizes, dst)
	if s.err != nil {
		s.free(dst[base:]...)
		return dst[:base]
	}
	for i, shape := range l.shapes {
		if shape == nil {
			continue
		}
		v := s.view(dst[base+i], shape...)
		s.free(dst[base+i])
		dst[base+i] = v
	}
	return dst
}

// mlp runs x through layers with the configured activation between them, as
// session ops (autograd can trace them). Training and inference run the
// networks in the shim (shim.cpp); this is the tests' autograd reference.
// ps are the parameter tensors from params. x is not freed.
func (l *layout) mlp(s *session, x tensor, layers []layer, ps []tensor) tensor {
	h := x
	for k, ly := range layers {
		y := s.addmm(ps[ly.b], h, ps[ly.w])
		if h != x {
			s.free(h)
		}
		h = y
		if k < len(layers)-1 {
			var a tensor
			if l.act == "relu" {
				a = s.relu(h)
			} else {
				a = s.tanh(h)
			}
			s.free(h)
			h = a
		}
	}
	return h
}

// String describes the networks, e.g. "actor 17-64-64-6, critic 17-64-64-1, 11k params".
func (l *layout) String() string {
	dims := func(ls []layer) string {
		s := fmt.Sprint(ls[0].in)
		for _, ly := range ls {
			s += fmt.Sprintf("-%d", ly.out)
		}
		return s
	}
	return fmt.Sprintf("actor %s, critic %s, %d parameters", dims(l.actor), dims(l.critic), l.total)
}
