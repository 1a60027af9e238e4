package common

import (
	"slices"
	"testing"
)

func TestPeriod(t *testing.T) {
	type step struct {
		u      []float64
		obj    float64
		opened bool // Add's result
		closes int  // closePeriod calls so far
		mean   float64
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"one configuration accumulates", []step{
			{[]float64{0.5}, 1, true, 0, 1},
			{[]float64{0.5}, 3, false, 0, 2},
		}},
		{"a new configuration closes the period first", []step{
			{[]float64{0.5}, 1, true, 0, 1},
			{[]float64{0.25}, 4, true, 1, 4},
			{[]float64{0.25}, 6, false, 1, 5},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p Period
			closes := 0
			closePeriod := func() { closes++; p.Reset() }
			for i, s := range c.steps {
				if got := p.Add(s.u, s.obj, closePeriod); got != s.opened {
					t.Fatalf("step %d: opened = %v, want %v", i, got, s.opened)
				}
				if closes != s.closes {
					t.Fatalf("step %d: %d closes, want %d", i, closes, s.closes)
				}
				if m, ok := p.Mean(); !ok || m != s.mean {
					t.Fatalf("step %d: mean %v (%v), want %v", i, m, ok, s.mean)
				}
				if !p.Fits(len(s.u)) || p.Fits(len(s.u)+1) {
					t.Fatalf("step %d: Fits wrong for an open period of dim %d", i, len(s.u))
				}
			}
		})
	}
	var empty Period
	if _, ok := empty.Mean(); ok {
		t.Fatal("an empty period has no mean")
	}
	if !empty.Fits(3) {
		t.Fatal("a closed period fits any dimension")
	}
}

func TestSlide(t *testing.T) {
	cases := []struct {
		rows []float64
		w, n int
		want []float64
	}{
		{[]float64{1, 2, 3, 4, 5, 6}, 2, 2, []float64{3, 4, 5, 6}},
		{[]float64{1, 2, 3, 4, 5, 6}, 2, 3, []float64{1, 2, 3, 4, 5, 6}},
		{[]float64{1, 2, 3, 4, 5, 6}, 2, 5, []float64{1, 2, 3, 4, 5, 6}},
		{[]float64{1, 2, 3}, 1, 1, []float64{3}},
		{nil, 3, 2, nil},
	}
	for _, c := range cases {
		got := Slide(append([]float64(nil), c.rows...), c.w, c.n)
		if !slices.Equal(got, c.want) {
			t.Errorf("Slide(%v, %d, %d) = %v, want %v", c.rows, c.w, c.n, got, c.want)
		}
	}
}
