package hypercontroller

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
)

// hcState is everything MarshalBinary saves.
type hcState struct {
	D, S, H int     // shape, checked on restore
	Lambda  float64 // checked on restore
	Bonus   float64 // checked on restore
	// Intercept is checked on restore (false in states saved before it
	// existed, which is what they were).
	Intercept bool
	Rounds    int       // observed rounds t
	X         []float64 // the last s objective values, oldest first (zeros before round s)
	Ctx       []int32   // h × s: per hyperparameter, indices in force at the last s rounds, oldest first
	Cur       []int32   // h: indices of the last suggestion or observation (−1: none)
	Keys      []uint64  // allocated contexts, in allocation order
	Slots     []int32   // len(Keys) × d: model number per value, −1 if not allocated
	G         []float64 // len(Keys) × d × s: Ĝ_a(c) per context and value, 0 if not allocated
	Models    []float64 // model arena, stride floats each (see modelStride)
}

// MarshalBinary returns the full state (histories and every predictor).
func (m *HyperController) MarshalBinary() ([]byte, error) {
	if !m.inited {
		return nil, errors.New("hypercontroller: marshal before Init")
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&m.st); err != nil {
		return nil, fmt.Errorf("hypercontroller: marshal: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary restores a state from MarshalBinary. The state is checked
// against this controller's settings and space; on error nothing changes.
func (m *HyperController) UnmarshalBinary(b []byte) error {
	if !m.inited {
		return errors.New("hypercontroller: unmarshal before Init")
	}
	var st hcState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&st); err != nil {
		return fmt.Errorf("hypercontroller: unmarshal: %w", err)
	}
	d, s, h := m.set.D, m.set.S, m.h
	if st.D != d || st.S != s || st.H != h || st.Lambda != m.set.Lambda || st.Bonus != m.set.Bonus || st.Intercept != m.set.Intercept {
		return fmt.Errorf("hypercontroller: unmarshal: state is for d=%d s=%d lambda=%g bonus=%g intercept=%t over %d parameters, this controller has d=%d s=%d lambda=%g bonus=%g intercept=%t over %d",
			st.D, st.S, st.Lambda, st.Bonus, st.Intercept, st.H, d, s, m.set.Lambda, m.set.Bonus, m.set.Intercept, h)
	}
	p := m.dim()
	stride := modelStride(p)
	nModels := len(st.Models) / stride
	inRange := func(v []int32, lo int32, hi int) bool {
		for _, x := range v {
			if x < lo || int(x) >= hi {
				return false
			}
		}
		return true
	}
	switch {
	case st.Rounds < 0:
		return errors.New("hypercontroller: unmarshal: negative round count")
	case len(st.X) != s || len(st.Ctx) != h*s || len(st.Cur) != h:
		return errors.New("hypercontroller: unmarshal: history sizes do not match the settings")
	case len(st.Slots) != len(st.Keys)*d || len(st.G) != len(st.Slots)*p || len(st.Models)%stride != 0:
		return errors.New("hypercontroller: unmarshal: model table sizes do not match the settings")
	case !inRange(st.Ctx, 0, d) || !inRange(st.Cur, -1, d) || !inRange(st.Slots, -1, nModels):
		return errors.New("hypercontroller: unmarshal: index out of range")
	}
	for _, v := range [][]float64{st.X, st.G, st.Models} {
		for _, f := range v {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return errors.New("hypercontroller: unmarshal: non-finite value")
			}
		}
	}
	nctx, _ := contextCount(d, s)
	index := make(map[uint64]int32, len(st.Keys))
	for j, k := range st.Keys {
		if k>>48 >= uint64(h) || k&(1<<48-1) >= nctx {
			return errors.New("hypercontroller: unmarshal: context key out of range")
		}
		if _, dup := index[k]; dup {
			return errors.New("hypercontroller: unmarshal: duplicate context")
		}
		index[k] = int32(j * d)
	}
	m.st, m.index = st, index
	for i := range m.h {
		m.blk[i] = m.lookup(i)
	}
	return nil
}
