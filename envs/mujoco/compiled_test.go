package mujoco

import (
	"fmt"
	"math"
	"testing"
)

// TestCopiedModelEqualsCompiled: LoadXML's model, a copy of the one the
// process compiled first, equals a new compilation of the same document in
// every mjModel array, bit for bit, and in its sizes and options, for every
// built-in environment's model.
func TestCopiedModelEqualsCompiled(t *testing.T) {
	for _, mf := range modelFiles {
		t.Run(mf.name, func(t *testing.T) {
			xml, ok := ModelXML(mf.name)
			if !ok {
				t.Fatalf("no model %s", mf.name)
			}
			cm, err := compileXML(xml)
			if err != nil {
				t.Fatal(err)
			}
			fresh := &Model{m: cm}
			defer fresh.Close()
			for round := range 2 { // the first LoadXML may compile; the second copies
				got, err := LoadXML(xml)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameModel(got, fresh); err != nil {
					t.Errorf("round %d: %v", round, err)
				}
				got.Close()
			}
		})
	}
}

// sameModel says where a and b differ: a size, the options, or an array.
func sameModel(a, b *Model) error {
	for _, s := range []struct {
		what string
		a, b int
	}{{"nq", a.Nq(), b.Nq()}, {"nv", a.Nv(), b.Nv()}, {"nu", a.Nu(), b.Nu()}, {"nbody", a.NBody(), b.NBody()},
		{"njnt", a.NJnt(), b.NJnt()}, {"ngeom", a.NGeom(), b.NGeom()}, {"nsite", a.NSite(), b.NSite()}} {
		if s.a != s.b {
			return fmt.Errorf("%s: %d against %d", s.what, s.a, s.b)
		}
	}
	oa, err1 := a.Options()
	ob, err2 := b.Options()
	if err1 != nil || err2 != nil || oa != ob {
		return fmt.Errorf("options: %+v (%v) against %+v (%v)", oa, err1, ob, err2)
	}
	for _, name := range FieldNames() {
		fa, err1 := a.Field(name)
		fb, err2 := b.Field(name)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s: %v, %v", name, err1, err2)
		}
		if fa.Rows != fb.Rows || fa.Cols != fb.Cols {
			return fmt.Errorf("%s: %d×%d against %d×%d", name, fa.Rows, fa.Cols, fb.Rows, fb.Cols)
		}
		for i := range fa.Values {
			if math.Float64bits(fa.Values[i]) != math.Float64bits(fb.Values[i]) {
				return fmt.Errorf("%s[%d]: %v against %v", name, i, fa.Values[i], fb.Values[i])
			}
		}
	}
	return nil
}

// TestCopiedModelsAreIndependent: a model from LoadXML is the caller's
// own: closing it leaves another copy of the same document working, and
// when more documents than the cache keeps were compiled, a copy of the
// first one, freed from the cache, still steps.
func TestCopiedModelsAreIndependent(t *testing.T) {
	first := fmt.Sprintf("<mujoco><!-- independent 0 -->%s</mujoco>", fallingBoxBody(t))
	a, err := LoadXML(first)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := LoadXML(first)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	for i := 1; i <= compiledCap; i++ { // push first out of the cache
		m, err := LoadXML(fmt.Sprintf("<mujoco><!-- independent %d -->%s</mujoco>", i, fallingBoxBody(t)))
		if err != nil {
			t.Fatal(err)
		}
		m.Close()
	}
	compiled.mu.Lock()
	_, kept := compiled.m[first]
	n := len(compiled.m)
	compiled.mu.Unlock()
	if kept || n > compiledCap {
		t.Fatalf("cache: first document kept %v, %d documents (cap %d)", kept, n, compiledCap)
	}
	d, err := NewData(a)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Step(10); err != nil {
		t.Fatalf("stepping a copy whose compiled model left the cache: %v", err)
	}
}

// fallingBoxBody is fallingBox without its <mujoco> element.
func fallingBoxBody(t *testing.T) string {
	s := fallingBox
	i, j := len("<mujoco>"), len(s)-len("</mujoco>")
	if s[:i] != "<mujoco>" || s[j:] != "</mujoco>" {
		t.Fatalf("fallingBox is not one <mujoco> element: %q", s)
	}
	return s[i:j]
}
