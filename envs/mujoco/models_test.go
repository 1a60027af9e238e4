package mujoco

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// referenceDir is ../shared/reference/mujoco relative to the repository root
// (the directory holding go.mod), or "" when it does not exist.
func referenceDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	ref := filepath.Join(dir, "..", "shared", "reference", "mujoco")
	if st, err := os.Stat(ref); err != nil || !st.IsDir() {
		return ""
	}
	return ref
}

var modelFiles = []struct {
	name, file string
}{
	{"ant", "ant.xml"},
	{"halfcheetah", "half_cheetah.xml"},
	{"humanoid", "humanoid.xml"},
	{"inverteddoublependulum", "inverted_double_pendulum.xml"},
	{"pusher", "pusher.xml"},
	{"reacher", "reacher.xml"},
	{"hopper", "hopper.xml"},
	{"walker2d", "walker2d.xml"},
	{"swimmer", "swimmer.xml"},
	{"invertedpendulum", "inverted_pendulum.xml"},
}

// comparedFields are the compiled mjModel arrays that decide the physics:
// kinematic tree, masses and inertias, joints and dofs, geoms (shape, pose,
// contact parameters), sites, tendons and their wrap lists, and actuators.
// Visual-only arrays (colours,
// materials, cameras, lights) and names are left out.
var comparedFields = []string{
	"qpos0", "qpos_spring",
	"body_parentid", "body_jntnum", "body_jntadr", "body_dofnum", "body_dofadr",
	"body_geomnum", "body_pos", "body_quat", "body_ipos", "body_iquat",
	"body_mass", "body_subtreemass", "body_inertia",
	"jnt_type", "jnt_qposadr", "jnt_dofadr", "jnt_bodyid", "jnt_limited",
	"jnt_solref", "jnt_solimp", "jnt_pos", "jnt_axis", "jnt_stiffness", "jnt_range", "jnt_margin",
	"dof_bodyid", "dof_jntid", "dof_parentid", "dof_solref", "dof_solimp",
	"dof_frictionloss", "dof_armature", "dof_damping",
	"geom_type", "geom_contype", "geom_conaffinity", "geom_condim", "geom_bodyid",
	"geom_priority", "geom_solmix", "geom_solref", "geom_solimp", "geom_size",
	"geom_pos", "geom_quat", "geom_friction", "geom_margin", "geom_gap",
	"site_bodyid", "site_pos", "site_quat",
	"tendon_adr", "tendon_num", "tendon_limited", "tendon_width", "tendon_solref_lim",
	"tendon_solimp_lim", "tendon_solref_fri", "tendon_solimp_fri", "tendon_range",
	"tendon_margin", "tendon_stiffness", "tendon_damping", "tendon_frictionloss",
	"tendon_lengthspring", "tendon_length0", "wrap_type", "wrap_objid", "wrap_prm",
	"actuator_trntype", "actuator_dyntype", "actuator_gaintype", "actuator_biastype",
	"actuator_trnid", "actuator_ctrllimited", "actuator_forcelimited",
	"actuator_dynprm", "actuator_gainprm", "actuator_biasprm",
	"actuator_ctrlrange", "actuator_forcerange", "actuator_gear",
}

func close64(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12+1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// TestModelsMatchReference compiles each of our MJCF models and Gymnasium's
// own file (read from ../shared/reference/mujoco, never copied) and checks
// that they agree on sizes, options, masses, inertias, joints, geoms and
// actuators. It skips when the reference folder is absent.
func TestModelsMatchReference(t *testing.T) {
	ref := referenceDir(t)
	if ref == "" {
		t.Skip("../shared/reference/mujoco not found")
	}
	for _, mf := range modelFiles {
		t.Run(mf.name, func(t *testing.T) {
			refXML, err := os.ReadFile(filepath.Join(ref, mf.file))
			if err != nil {
				t.Fatal(err)
			}
			want, err := LoadXML(string(refXML))
			if err != nil {
				t.Fatalf("reference model: %v", err)
			}
			defer want.Close()
			ourXML, _ := ModelXML(mf.name)
			got, err := LoadXML(ourXML)
			if err != nil {
				t.Fatalf("our model: %v", err)
			}
			defer got.Close()

			sizes := []struct {
				what      string
				got, want int
			}{
				{"nq", got.Nq(), want.Nq()}, {"nv", got.Nv(), want.Nv()}, {"nu", got.Nu(), want.Nu()},
				{"nbody", got.NBody(), want.NBody()}, {"njnt", got.NJnt(), want.NJnt()},
				{"ngeom", got.NGeom(), want.NGeom()}, {"nsite", got.NSite(), want.NSite()},
			}
			for _, s := range sizes {
				if s.got != s.want {
					t.Fatalf("%s = %d, reference %d", s.what, s.got, s.want)
				}
			}
			gotOpt, _ := got.Options()
			wantOpt, _ := want.Options()
			if gotOpt != wantOpt {
				t.Errorf("options differ:\n ours %+v\n ref  %+v", gotOpt, wantOpt)
			}

			// The typed accessors: everything the brief names explicitly.
			for i := 0; i < got.NBody(); i++ {
				g, _ := got.Body(i)
				w, _ := want.Body(i)
				if g.Name != w.Name {
					t.Errorf("body %d name %q, reference %q", i, g.Name, w.Name)
				}
				if !close64(g.Mass, w.Mass) {
					t.Errorf("body %s mass %.10g, reference %.10g", w.Name, g.Mass, w.Mass)
				}
				for k := range g.Inertia {
					if !close64(g.Inertia[k], w.Inertia[k]) {
						t.Errorf("body %s inertia %v, reference %v", w.Name, g.Inertia, w.Inertia)
						break
					}
				}
			}
			for i := 0; i < got.NJnt(); i++ {
				g, _ := got.Joint(i)
				w, _ := want.Joint(i)
				if g.Name != w.Name || g.Type != w.Type || g.Axis != w.Axis || g.Limited != w.Limited ||
					(w.Limited && g.Range != w.Range) || !close64(g.Damping, w.Damping) ||
					!close64(g.Stiffness, w.Stiffness) || !close64(g.Armature, w.Armature) {
					t.Errorf("joint %d:\n ours %+v\n ref  %+v", i, g, w)
				}
			}
			for i := 0; i < got.Nu(); i++ {
				g, _ := got.Actuator(i)
				w, _ := want.Actuator(i)
				if g.Gear != w.Gear || g.CtrlRange != w.CtrlRange || g.CtrlLimited != w.CtrlLimited || g.Joint != w.Joint {
					t.Errorf("actuator %d:\n ours %+v\n ref  %+v", i, g, w)
				}
			}
			for _, name := range []ObjType{ObjSite} {
				for i := 0; i < got.NSite(); i++ {
					if g, w := got.Name(name, i), want.Name(name, i); g != w {
						t.Errorf("site %d name %q, reference %q", i, g, w)
					}
				}
			}

			// Every physics array, element by element.
			for _, name := range comparedFields {
				g, err := got.Field(name)
				if err != nil {
					t.Fatal(err)
				}
				w, err := want.Field(name)
				if err != nil {
					t.Fatal(err)
				}
				if g.Rows != w.Rows || g.Cols != w.Cols {
					t.Errorf("%s is %dx%d, reference %dx%d", name, g.Rows, g.Cols, w.Rows, w.Cols)
					continue
				}
				for k := range g.Values {
					if !close64(g.Values[k], w.Values[k]) {
						t.Errorf("%s[%d][%d] = %.12g, reference %.12g", name, k/g.Cols, k%g.Cols, g.Values[k], w.Values[k])
					}
				}
			}
		})
	}
}
