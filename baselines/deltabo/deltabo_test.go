package deltabo

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// synthRecords is a source run of n iterations at uniform random
// configurations (in each parameter's scale) with objective
// f(u) + noise·N(0, 1).
func synthRecords(space controller.Space, f func(u []float64) float64, n int, noise float64, seed uint64) []Record {
	rng := rand.New(rand.NewPCG(seed, 77))
	d := space.Dim()
	u := make([]float64, d)
	out := make([]Record, 0, n)
	for it := range n {
		cfg := map[string]float64{}
		for i := range d {
			u[i] = rng.Float64()
			cfg[space.Param(i).Name] = space.FromUnit(i, u[i])
		}
		for i := range d {
			u[i] = space.ToUnit(i, cfg[space.Param(i).Name])
		}
		out = append(out, Record{Run: 0, Iteration: it, Time: float64(it), Config: cfg, Objective: f(u) + noise*rng.NormFloat64()})
	}
	return out
}

// paperF is methodtest.PaperGain as a function of the configuration.
func paperF(u []float64) float64 { return methodtest.PaperGain(0, u) }

// withSource returns default settings (fewer candidates, for speed) with a
// synthetic source of 150 records of paperF.
func withSource(t testing.TB, space controller.Space) *Settings {
	s := DefaultSettings()
	s.Candidates = 64
	s.Records = synthRecords(space, paperF, 150, 0.1, 1)
	return &s
}

// The driver-level contract of every method (methodtest), with a synthetic
// source. The snapshots are restored into drivers built with another
// source (the state's source must win), under each progress input; the
// restored source GP must predict bit-identically.
func TestContract(t *testing.T) {
	space := methodtest.PaperSpace(t)
	src := func() controller.Settings { return withSource(t, space) }
	t.Run("Registered", func(t *testing.T) { methodtest.Registered(t, Name) })
	t.Run("DeterministicGivenSeed", func(t *testing.T) {
		methodtest.Deterministic(t, Name, src, methodtest.PaperGain, 100)
	})
	t.Run("SnapshotRestoreContinues", func(t *testing.T) {
		for _, prog := range []string{progressIteration, progressTime, progressNone} {
			set := func() controller.Settings { s := withSource(t, space); s.Progress = prog; return s }
			methodtest.SnapshotRestore(t, methodtest.Snapshot{
				Name: Name, Settings: set, Total: 120, Pending: 60,
				Restore: func() controller.Settings {
					s := set().(*Settings)
					s.Records = synthRecords(space, func(u []float64) float64 { return -paperF(u) }, 80, 0.3, 9)
					return s
				},
				Restored:   sameSource,
				OtherSpace: true,
				OtherSettings: func(s2 controller.Space) controller.Settings {
					o := DefaultSettings()
					o.Records = synthRecords(s2, func(u []float64) float64 { return u[0] }, 30, 0.1, 2)
					return &o
				},
			})
		}
	})
	t.Run("NonFiniteObservationRejected", func(t *testing.T) {
		methodtest.NonFiniteRejected(t, methodtest.NonFinite{Name: Name, Settings: src})
	})
	t.Run("UseBeforeInit", func(t *testing.T) { methodtest.UseBeforeInit(t, withSource(t, space)) })
	t.Run("Extremes", func(t *testing.T) {
		methodtest.ExtremesRoundTrip(t, methodtest.Extremes{Name: Name, Settings: func(sp controller.Space) controller.Settings { return withSource(t, sp) }})
	})
}

// sameSource checks that a restored DeltaBO's source GP predicts
// bit-identically to the original's.
func sameSource(t *testing.T, cut int, a, b *controller.Controller) {
	ma, mb := a.Method().(*DeltaBO), b.Method().(*DeltaBO)
	xs := []float64{0.5, 0.1, 0.2, 0.3, 0.4}[:ma.st.Cols]
	m1, v1, m2, v2 := make([]float64, 1), make([]float64, 1), make([]float64, 1), make([]float64, 1)
	if err := ma.source(xs, m1, v1); err != nil {
		t.Fatal(err)
	}
	if err := mb.source(xs, m2, v2); err != nil {
		t.Fatal(err)
	}
	if m1[0] != m2[0] || v1[0] != v2[0] {
		t.Fatalf("cut %d: restored source GP predicts (%v, %v), original (%v, %v)", cut, m2[0], v2[0], m1[0], v1[0])
	}
}

// Each bad field is rejected with an error naming its TOML key.
func TestValidateNamesField(t *testing.T) {
	mod := func(f func(*Settings)) *Settings { s := DefaultSettings(); f(&s); return &s }
	methodtest.RejectsFields(t, []methodtest.FieldCase{
		{Field: "objective", Settings: mod(func(s *Settings) { s.Objective = controller.Objective(99) })},
		{Field: "progress", Settings: mod(func(s *Settings) { s.Progress = "epochs" })},
		{Field: "delta_kernel", Settings: mod(func(s *Settings) { s.DeltaKernel = "linear" })},
		{Field: "source_block", Settings: mod(func(s *Settings) { s.SourceBlock = 0 })},
		{Field: "source_block", Settings: mod(func(s *Settings) { s.SourceBlock = 5001 })},
		{Field: "max_source", Settings: mod(func(s *Settings) { s.MaxSource = 1 })},
		// The shared blocks: one field each (their fields: gploop's tests).
		{Field: "window", Settings: mod(func(s *Settings) { s.Window = 1 })},
		{Field: "grid", Settings: mod(func(s *Settings) { s.Grid = 1 })},
		{Field: "restarts", Settings: mod(func(s *Settings) { s.Restarts = -1 })},
		{Field: "candidates", Settings: mod(func(s *Settings) { s.Candidates = 0 })},
	})
}

// Settings decode strictly from TOML by their tags; Records is not a key.
func TestSettingsTOML(t *testing.T) {
	want := Settings{TransferFrom: "runs/source", Objective: controller.Reward, Progress: "time", SourceBlock: 3, MaxSource: 100,
		DeltaKernel: "matern52", Candidates: 64}
	want.Kernel, want.Window, want.Delta, want.Grid, want.BetaScale, want.Restarts, want.RestartEvery = "se", 50, 0.05, 20, 0.2, 0, 3
	methodtest.DecodesTOML(t, methodtest.TOML(`transfer_from = "runs/source"`, `objective = "reward"`, `progress = "time"`, "source_block = 3", "max_source = 100",
		`kernel = "se"`, `delta_kernel = "matern52"`, "window = 50", "delta = 0.05", "grid = 20",
		"beta_scale = 0.2", "restarts = 0", "restart_every = 3", "candidates = 64"), &Settings{}, &want)
	var sb strings.Builder
	if err := toml.NewEncoder(&sb).Encode(want); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(sb.String()), "records") {
		t.Errorf("encoded settings mention records:\n%s", sb.String())
	}
}

// Non-finite or incomplete source records are refused at Init.
func TestBadSourceRecords(t *testing.T) {
	space := methodtest.PaperSpace(t)
	s := DefaultSettings()
	s.Records = synthRecords(space, paperF, 20, 0.1, 1)
	s.Records[3].Objective = math.NaN()
	if _, err := controller.Build(Name, &s, space, controller.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Errorf("a NaN source objective: %v", err)
	}
	s.Records = synthRecords(space, paperF, 20, 0.1, 1)
	delete(s.Records[5].Config, "clip")
	if _, err := controller.Build(Name, &s, space, controller.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "clip") {
		t.Errorf("a source record without clip: %v", err)
	}
}

// Degenerate data — in the source, the target, or both — never crashes,
// never yields an invalid or NaN configuration (the driver validates every
// suggestion) and never makes a δ fit fail.
func TestDegenerateData(t *testing.T) {
	intSpace := methodtest.IntSpace(t)
	smooth := func(u []float64) float64 { return 1 - methodtest.Sq(u[0]-0.4) }
	scaled := func(s float64) func([]float64) float64 { return func(u []float64) float64 { return s * smooth(u) } }
	constant := func(v float64) func([]float64) float64 { return func([]float64) float64 { return v } }
	for _, c := range []struct {
		name         string
		space        controller.Space
		src, tgt     func([]float64) float64
		sNoise, tNse float64
		nSrc, iters  int
	}{
		{"constant source and target", methodtest.UnitSpace(t, 2), constant(1), constant(1), 0, 0, 50, 60},
		{"zero source and target", methodtest.UnitSpace(t, 2), constant(0), constant(0), 0, 0, 50, 60},
		{"duplicate inputs (two-valued integer)", intSpace, smooth, smooth, 0.1, 0.1, 50, 60},
		{"duplicates, constant", intSpace, constant(3), constant(3), 0, 0, 50, 60},
		{"single source record, single target point", methodtest.PaperSpace(t), smooth, smooth, 0.1, 0.1, 1, 10},
		{"scale 1e-12", methodtest.PaperSpace(t), scaled(1e-12), scaled(1e-12), 1e-13, 1e-13, 50, 60},
		{"scale 1e12", methodtest.PaperSpace(t), scaled(1e12), scaled(1e12), 1e11, 1e11, 50, 60},
		{"source 1e12, target 1e-12", methodtest.PaperSpace(t), scaled(1e12), scaled(1e-12), 1e11, 1e-13, 50, 60},
		{"source 1e-12, target 1e12", methodtest.PaperSpace(t), scaled(1e-12), scaled(1e12), 1e-13, 1e11, 50, 60},
	} {
		for _, prog := range []string{progressIteration, progressNone} {
			s := DefaultSettings()
			s.Candidates = 32
			s.Progress = prog
			s.Records = synthRecords(c.space, c.src, c.nSrc, c.sNoise, 4)
			ctl := methodtest.Build(t, Name, &s, c.space, 5, 3)
			tgt := c.tgt
			methodtest.NewFeedback(c.space, func(_ int, u []float64) float64 { return tgt(u) }, c.tNse, 4).Run(t, ctl, 0, c.iters)
			if f := ctl.Method().(*DeltaBO).Failures(); f != 0 {
				t.Errorf("%s (%s): %d failed δ fits", c.name, prog, f)
			}
		}
	}
}

// An objective name that is not one of the driver's is refused when the
// TOML is decoded, with an error naming the key and the valid names.
func TestSettingsTOMLBadObjective(t *testing.T) {
	for _, text := range []string{`objective = "loss"`, `objective = 3`} {
		s := DefaultSettings()
		_, err := toml.Decode(text, &s)
		if err == nil || !strings.Contains(err.Error(), "objective") {
			t.Errorf("decode %s: error %v, want one naming objective", text, err)
		}
	}
}

// TestNoSourceWords: Init without a source names the config key and
// configs.SetTransferFrom in Go, and a command line's flag in its words.
func TestNoSourceWords(t *testing.T) {
	space := methodtest.PaperSpace(t)
	for _, tc := range []struct {
		name string
		w    words.Words
		want string
	}{
		{"Go", words.Go, "set [controller.deltabo] transfer_from, or configs.SetTransferFrom (DeltaBO"},
		{"flags", words.Words{TransferFrom: "--transfer-from DIR"}, "set [controller.deltabo] transfer_from, or --transfer-from DIR (DeltaBO"},
	} {
		s := DefaultSettings()
		m, err := s.New()
		if err != nil {
			t.Fatal(err)
		}
		err = m.Init(space, rand.New(rand.NewPCG(1, 2)))
		if err == nil {
			t.Fatalf("%s: Init without a source: no error", tc.name)
		}
		if got := words.Say(err, tc.w); !strings.Contains(got, tc.want) || tc.name == "Go" && (got != err.Error() || strings.Contains(got, "--")) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
