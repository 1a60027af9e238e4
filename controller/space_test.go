package controller_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// Space errors name the parameter and the field; an empty space is refused.
func TestNewSpaceErrors(t *testing.T) {
	for _, c := range []struct {
		p    controller.Param
		want string
	}{
		{controller.Param{Name: "clip", Low: 0.5, High: 0.1}, "low"},
		{controller.Param{Name: "lr", Low: 0, High: 1e-3, Scale: controller.Log}, "low"},
		{controller.Param{Name: "", Low: 0, High: 1}, "name"},
		{controller.Param{Name: "x", Low: -1e308, High: 1e308}, "x: span: high − low"},
		{controller.Param{Name: "x", Low: -math.MaxFloat64, High: 1e300}, "x: span"},
	} {
		if _, err := controller.NewSpace(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("space %+v: error %v", c.p, err)
		}
	}
	if _, err := controller.NewSpace(); err == nil {
		t.Error("empty space accepted")
	}
}

// The widest finite spans are accepted: a span, linear or log, is refused
// only when it is not a finite number.
func TestNewSpaceWidestSpans(t *testing.T) {
	for _, p := range []controller.Param{
		{Name: "x", Low: -math.MaxFloat64 / 2, High: math.MaxFloat64 / 2},
		{Name: "x", Low: 0, High: math.MaxFloat64},
		{Name: "x", Low: 5e-324, High: math.MaxFloat64, Scale: controller.Log},
		{Name: "x", Low: 0, High: 5e-324},
	} {
		s, err := controller.NewSpace(p)
		if err != nil {
			t.Errorf("space %+v: %v", p, err)
			continue
		}
		for _, u := range []float64{0, 0.5, 1} {
			if v := s.FromUnit(0, u); math.IsNaN(v) || v < p.Low || v > p.High {
				t.Errorf("space %+v: FromUnit(%v) = %v", p, u, v)
			}
		}
	}
}
