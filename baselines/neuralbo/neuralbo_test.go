package neuralbo

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// small is the default settings with fewer candidates, to keep the
// driver-level tests fast.
func small() *Settings {
	s := DefaultSettings()
	s.Candidates = 64
	return &s
}

// wideBumps is a smooth bimodal function on [0, 1]: the global mode at 0.7
// (f ≈ 1.002) and a second mode of height ≈ 0.5 at 0.2, both of width 0.15.
func wideBumps(_ int, u []float64) float64 {
	return math.Exp(-methodtest.Sq(u[0]-0.7)/(2*0.15*0.15)) + 0.5*math.Exp(-methodtest.Sq(u[0]-0.2)/(2*0.15*0.15))
}

// NeuralBO (default settings, decision interval 1, noise sd 0.05) finds the
// maximum of wideBumps: within a budget of 40 rounds it samples a point
// within 0.01 of the maximum, and the median regret of its last 10 rounds
// is <= 0.1 (the second mode has regret 0.5), for each of 5 seeds.
func TestFindsMaximum1D(t *testing.T) {
	const budget = 40
	fmax := wideBumps(0, []float64{0.7})
	for seed := uint64(1); seed <= 5; seed++ {
		_, cfgs := methodtest.RunUnit(t, Name, nil, 1, wideBumps, budget, seed)
		med, best := methodtest.LastMedian(cfgs, wideBumps)
		median := fmax - med
		t.Logf("seed %d: best f %.3f, last-10 median regret %.3f, last %.3f", seed, best, median, cfgs[len(cfgs)-1][0])
		if best < fmax-0.01 || median > 0.1 {
			t.Errorf("seed %d: best f %.3f (want >= %.3f), last-10 median regret %.3f (want <= 0.1)", seed, best, fmax-0.01, median)
		}
	}
}

// The driver-level contract of every method (methodtest), in both
// retraining modes; after a restore the rebuilt U⁻¹ equals the original
// bit for bit.
func TestContract(t *testing.T) {
	t.Run("Registered", func(t *testing.T) {
		s := methodtest.Registered(t, Name)
		want := Settings{Width: 100, Lambda: 0.01, Nu: 1, LR: 0.001, Epochs: 50, Batch: 50, WarmStart: true, Candidates: 256}
		if !reflect.DeepEqual(*s.(*Settings), want) {
			t.Errorf("defaults %+v, want %+v", *s.(*Settings), want)
		}
	})
	for _, warm := range []bool{false, true} {
		set := func() controller.Settings { s := small(); s.WarmStart = warm; return s }
		t.Run(fmt.Sprintf("DeterministicGivenSeed/warm_start=%v", warm), func(t *testing.T) {
			methodtest.Deterministic(t, Name, set, methodtest.PaperGain, 100)
		})
		t.Run(fmt.Sprintf("SnapshotRestoreContinues/warm_start=%v", warm), func(t *testing.T) {
			methodtest.SnapshotRestore(t, methodtest.Snapshot{Name: Name, Settings: set, Total: 120, Pending: 60,
				Restored: func(t *testing.T, cut int, a, b *controller.Controller) {
					if !slices.Equal(a.Method().(*NeuralBO).inv.a, b.Method().(*NeuralBO).inv.a) {
						t.Fatalf("cut %d: rebuilt U⁻¹ differs from the original", cut)
					}
				},
				OtherSpace:    true,
				OtherSettings: func(controller.Space) controller.Settings { return small() },
			})
		})
	}
	t.Run("NonFiniteObservationRejected", func(t *testing.T) {
		methodtest.NonFiniteRejected(t, methodtest.NonFinite{Name: Name, Settings: func() controller.Settings { return small() }})
	})
	t.Run("UseBeforeInit", func(t *testing.T) { methodtest.UseBeforeInit(t, small()) })
}

// Each bad field is rejected with an error naming its TOML key.
func TestValidateNamesField(t *testing.T) {
	mod := func(f func(*Settings)) *Settings { s := DefaultSettings(); f(&s); return &s }
	methodtest.RejectsFields(t, []methodtest.FieldCase{
		{Field: "width", Settings: mod(func(s *Settings) { s.Width = 0 })},
		{Field: "lambda", Settings: mod(func(s *Settings) { s.Lambda = 0 })},
		{Field: "lambda", Settings: mod(func(s *Settings) { s.Lambda = math.NaN() })},
		{Field: "nu", Settings: mod(func(s *Settings) { s.Nu = -1 })},
		{Field: "nu", Settings: mod(func(s *Settings) { s.Nu = math.Inf(1) })},
		{Field: "lr", Settings: mod(func(s *Settings) { s.LR = 0 })},
		{Field: "epochs", Settings: mod(func(s *Settings) { s.Epochs = -1 })},
		{Field: "batch", Settings: mod(func(s *Settings) { s.Batch = 0 })},
		{Field: "batch", Settings: mod(func(s *Settings) { s.Batch = 100001 })},
		{Field: "width", Settings: mod(func(s *Settings) { s.Width = 4097 })},
		{Field: "candidates", Settings: mod(func(s *Settings) { s.Candidates = 0 })},
	})
}

// Settings decode strictly from TOML by their tags.
func TestSettingsTOML(t *testing.T) {
	methodtest.DecodesTOML(t, `width = 500
lambda = 0.1
nu = 10.0
lr = 0.01
epochs = 5
batch = 8
warm_start = true
candidates = 32`, &Settings{}, &Settings{Width: 500, Lambda: 0.1, Nu: 10, LR: 0.01, Epochs: 5, Batch: 8, WarmStart: true, Candidates: 32})
}

// Degenerate data never crashes and never yields an invalid or NaN
// configuration (the driver validates every suggestion); the trained
// network stays finite.
func TestDegenerateData(t *testing.T) {
	for _, c := range methodtest.Degenerate(t, 60) {
		for _, warm := range []bool{false, true} {
			s := small()
			s.WarmStart = warm
			m := c.Run(t, Name, s, 5).Method().(*NeuralBO)
			for _, v := range m.st.Theta {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s (warm %v): non-finite network parameter", c.Name, warm)
				}
			}
		}
	}
}

// A network whose parameter count exceeds MaxFeatures for the space is
// refused at Init with an error naming width and the largest that fits.
func TestInitBoundsNetworkSize(t *testing.T) {
	s := DefaultSettings()
	s.Width = 4096 // 4096·(4+2) features: U⁻¹ would take 4.5 GiB
	_, err := controller.Build(Name, &s, methodtest.PaperSpace(t), controller.Options{Interval: 1, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "width: 4096 units over 4 hyperparameters give 24576 features") || !strings.Contains(err.Error(), "want width <= 682") {
		t.Fatalf("oversized network: %v", err)
	}
	s.Width = 682
	if _, err := controller.Build(Name, &s, methodtest.PaperSpace(t), controller.Options{Interval: 1, Seed: 1}); err != nil {
		t.Fatalf("largest network that fits: %v", err)
	}
}
