package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// testSettings is a registered stand-in method so the per-method table logic
// is exercised without depending on any real controller.
type testSettings struct {
	D int `toml:"d"`
}

func (s *testSettings) Validate() error {
	if s.D < 2 {
		return &Error{Key: "d", Msg: "want d >= 2"}
	}
	return nil
}
func (s *testSettings) New() (controller.Method, error) { return nil, nil }

func init() {
	_ = controller.Register(controller.Entry{Name: "cfgtest", Summary: "test only", Defaults: func() controller.Settings { return &testSettings{D: 10} }})
}

func TestDefaultsParse(t *testing.T) {
	for _, name := range []string{"halfcheetah", "bipedalwalker", "pusher", "inverteddoublependulum", "reacher", "hopper", "walker2d", "swimmer", "invertedpendulum", "ant", "humanoid"} {
		t.Run(name, func(t *testing.T) {
			r, err := Default(name)
			if err != nil {
				t.Fatal(err)
			}
			if r.Env != name || r.Iterations != 1000 || r.EvalEvery != 10 || r.Controller.Interval != 5 || r.Controller.Name != DefaultController {
				t.Fatalf("unexpected defaults: env %q iterations %d eval_every %d interval %d controller %s", r.Env, r.Iterations, r.EvalEvery, r.Controller.Interval, r.Controller.Name)
			}
			hc, ok := r.Controller.Settings["hypercontroller"]
			if !ok {
				t.Fatal("no [controller.hypercontroller] table decoded")
			}
			if err := hc.Validate(); err != nil {
				t.Fatal(err)
			}
			sp, err := r.Controller.Space()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(sp.Names(), ","); got != "batch_size,clip,gae_lambda,lr" {
				t.Fatalf("tuned %s, want the paper's four", got)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string // substrings of the error
	}{
		{"unknown top-level key", "env = \"halfcheetah\"\nitertions = 5\n", []string{"cfg.toml", "itertions", "unknown key", "iterations"}},
		{"unknown ppo key", "env = \"halfcheetah\"\n[ppo]\nlearning_rate = 0.1\n", []string{"ppo.learning_rate", "unknown key", "lr"}},
		{"bad type", "env = \"halfcheetah\"\n[ppo]\nlr = \"fast\"\n", []string{"cfg.toml", "ppo.lr", "line 3"}},
		{"out of range", "env = \"halfcheetah\"\n[ppo]\nclip = 1.5\n", []string{"cfg.toml", "clip", "(0, 1)", "1.5"}},
		{"iterations out of range", "env = \"halfcheetah\"\niterations = 0\n", []string{"iterations", "[1, 10000000]"}},
		{"unknown controller", "env = \"halfcheetah\"\n[controller]\nname = \"nope\"\n", []string{"controller.name", "nope", "fixed"}},
		{"untunable", "env = \"halfcheetah\"\n[[controller.tune]]\nname = \"adam_eps\"\nlow = 1e-8\nhigh = 1e-5\n", []string{"controller.tune[0].name", "batch_size, clip, gae_lambda, lr, gamma"}},
		{"low >= high", "env = \"halfcheetah\"\n[[controller.tune]]\nname = \"clip\"\nlow = 0.4\nhigh = 0.2\n", []string{"controller.tune[0]", "low"}},
		{"unknown method table", "env = \"halfcheetah\"\n[controller.nosuch]\nd = 3\n", []string{"controller.nosuch", "cfgtest"}},
		{"unknown method key", "env = \"halfcheetah\"\n[controller.cfgtest]\nq = 3\n", []string{"controller.cfgtest.q", "allowed: d"}},
		{"method value out of range", "env = \"halfcheetah\"\n[controller.cfgtest]\nd = 1\n", []string{"controller.cfgtest", "d >= 2"}},
		{"unknown objective", "env = \"halfcheetah\"\n[controller]\nobjective = \"loss\"\n", []string{"cfg.toml", "controller.objective", "line 3", "delta, reward, delta_per_second, delta_per_kframe"}},
		{"unknown scale", "env = \"halfcheetah\"\n[[controller.tune]]\nname = \"lr\"\nlow = 1e-5\nhigh = 1e-3\nscale = \"cubic\"\n", []string{"cfg.toml", "controller.tune.scale", "cubic", "log"}},
		{"tuned bound outside ppo's range", "env = \"halfcheetah\"\n[[controller.tune]]\nname = \"clip\"\nlow = 0.1\nhigh = 1.5\n", []string{"controller.tune[0]", "high: ppo.clip", "(0, 1)"}},
		{"missing env", "seed = 1\n", []string{"env", "missing"}},
		{"minibatch larger than the batch", "env = \"halfcheetah\"\n[ppo]\nbatch_size = 512\nminibatch_size = 1024\n[controller]\nname = \"fixed\"\n", []string{"ppo.minibatch_size", "want an integer <= 512", "(ppo.batch_size)", "got 1024"}},
		{"minibatch larger than the tuned lower bound", "env = \"halfcheetah\"\n[ppo]\nminibatch_size = 1500\n[controller]\nname = \"cfgtest\"\n", []string{"ppo.minibatch_size", "<= 1000", "lower bound of the tuned batch_size"}},
		{"too many frames", "env = \"halfcheetah\"\niterations = 10000000\n[controller]\nname = \"cfgtest\"\n", []string{"iterations", "10000000 × 6000", "more than the limit of 10000000000"}},
		{"seed beyond ppo's", "env = \"halfcheetah\"\nseed = 9223372036854775807\n", []string{"seed", "[0, 2305843009213693951]"}},
		{"hidden too large", "env = \"halfcheetah\"\n[ppo]\nhidden = [4096, 4096]\n", []string{"ppo.hidden", "at most 4194304 weights", "16777216 weights"}},
		{"negative frames", "env = \"halfcheetah\"\nframes = -1\n", []string{"cfg.toml", "frames", "0: no frame budget"}},
		{"frames beyond the cap", "env = \"halfcheetah\"\niterations = 100\nframes = 1000000\n[controller]\nname = \"cfgtest\"\n", []string{"cfg.toml", "frames", "as few as 1000 frames", "iterations >= 1000"}},
		{"fixed frames beyond the cap", "env = \"halfcheetah\"\niterations = 100\nframes = 1000000\n[controller]\nname = \"fixed\"\n", []string{"frames", "as few as 2048 frames", "iterations >= 489"}},
		{"minibatch above batch", "env = \"halfcheetah\"\n[ppo]\nminibatch_size = 4096\n", []string{"cfg.toml", "ppo.minibatch_size", "want an integer <= 2048 (ppo.batch_size)"}},
		{"tuned minibatch above the tuned batch", "env = \"halfcheetah\"\n[controller]\nname = \"cfgtest\"\n[[controller.tune]]\nname = \"batch_size\"\nlow = 1000\nhigh = 6000\n[[controller.tune]]\nname = \"minibatch_size\"\nlow = 32\nhigh = 2048\n", []string{"controller.tune[1]", "minibatch_size may reach 2048", "batch_size may be as low as 1000"}},
		{"tuned batch below the minibatch", "env = \"halfcheetah\"\n[ppo]\nminibatch_size = 512\n[controller]\nname = \"cfgtest\"\n[[controller.tune]]\nname = \"batch_size\"\nlow = 256\nhigh = 6000\n", []string{"ppo.minibatch_size", "want an integer <= 256, the smallest batch this run can use (the lower bound of the tuned batch_size), got 512"}},
		{"lr and lr_scale both tuned", "env = \"halfcheetah\"\n[controller]\nname = \"cfgtest\"\n[[controller.tune]]\nname = \"lr\"\nlow = 1e-5\nhigh = 1e-3\n[[controller.tune]]\nname = \"lr_scale\"\nlow = 0.5\nhigh = 2\n", []string{"controller.tune[1]", "lr and lr_scale are both tuned"}},
		{"tuned lr_scale beyond lr 1", "env = \"halfcheetah\"\n[ppo]\nlr = 0.01\n[controller]\nname = \"cfgtest\"\n[[controller.tune]]\nname = \"lr_scale\"\nlow = 0.5\nhigh = 200\n", []string{"controller.tune[0]", "lr × lr_scale <= 1"}},
		{"tune without a controller", "env = \"halfcheetah\"\n[[controller.tune]]\nname = \"clip\"\nlow = 0.1\nhigh = 0.3\n", []string{"cfg.toml", "controller.tune", "no controller.name", "trains fixed, which tunes nothing"}},
		{"syntax", "env = \n", []string{"cfg.toml", "line 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("cfg.toml", c.text)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "absent.toml")
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("got %v, want a not-found error naming %s", err, p)
	}
}

func TestMethodTableAndRoundTrip(t *testing.T) {
	text := "env = \"reacher\"\n[controller]\nname = \"cfgtest\"\n[controller.cfgtest]\nd = 7\n[[controller.tune]]\nname = \"lr\"\nlow = 1e-5\nhigh = 1e-3\nscale = \"log\"\n"
	r, err := Parse("cfg.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	if sp, _ := r.Controller.Space(); sp.Dim() != 1 || sp.Param(0).Scale != controller.Log {
		t.Fatalf("tune list not replaced by the file's: %v", sp.Params())
	}
	if s := r.Controller.Settings["cfgtest"].(*testSettings); s.D != 7 {
		t.Fatalf("d = %d, want 7", s.D)
	}
	enc, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(enc), 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := Load(p)
	if err != nil {
		t.Fatalf("re-load of encoded config: %v\n%s", err, enc)
	}
	again, _ := r2.Encode()
	if again != enc {
		t.Fatalf("round trip changed the config:\n%s\n---\n%s", enc, again)
	}
}

// Overrides are applied after decoding and before the one validation, whose
// errors still name the file.
func TestOverrides(t *testing.T) {
	text := "env = \"reacher\"\niterations = 5\n"
	r, err := Parse("cfg.toml", text, func(r *Run) { r.Iterations = 7 }, func(r *Run) { r.Seed = 3 })
	if err != nil || r.Iterations != 7 || r.Seed != 3 {
		t.Fatalf("overrides: iterations %d seed %d, %v", r.Iterations, r.Seed, err)
	}
	_, err = Parse("cfg.toml", text, func(r *Run) { r.Iterations = 0 })
	if err == nil || !strings.Contains(err.Error(), "config cfg.toml: iterations") {
		t.Fatalf("invalid override: %v", err)
	}
	if r, err := Default("reacher", func(r *Run) { r.Controller.Name = "hypercontroller" }); err != nil || r.Controller.Name != "hypercontroller" {
		t.Fatalf("Default with an override: %v", err)
	}
}

// PaperSpace is the paper's four keys, read from ppoconfig.Hyper's declaration.
func TestPaperSpace(t *testing.T) {
	want := []TuneParam{
		{Name: "batch_size", Low: 1000, High: 6000, Scale: controller.Linear, Integer: true},
		{Name: "clip", Low: 0.1, High: 0.5, Scale: controller.Linear},
		{Name: "gae_lambda", Low: 0.9, High: 1.0, Scale: controller.Linear},
		{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Linear},
	}
	if got := PaperSpace(); !slices.Equal(got, want) {
		t.Fatalf("PaperSpace() = %+v", got)
	}
}

// TestLoadOnlyRegularFiles: a device, a directory or an oversized file is
// refused by name before anything is read into memory (/dev/zero was an
// out-of-memory crash).
func TestLoadOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte("env = \"reacher\"\n"+strings.Repeat("# padding\n", MaxFileBytes/10+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "config /dev/zero: not a regular file (a character device); want a TOML file"},
		{dir, "not a regular file (a directory)"},
		{big, "too large for a config (more than 1048576 bytes)"},
		{filepath.Join(dir, "missing.toml"), "file not found"},
	} {
		if _, err := Load(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s): %v, want an error containing %q", c.path, err, c.want)
		}
	}
}

// A frame budget within the iteration cap is accepted; the cap counts the
// smallest batch a controller may pick, rounded up to num_envs.
func TestFrameBudget(t *testing.T) {
	r, err := Parse("cfg.toml", "env = \"halfcheetah\"\nframes = 1000000\n[controller]\nname = \"cfgtest\"\n")
	if err != nil || r.Frames != 1_000_000 || r.MinFramesPerIteration() != 1000 {
		t.Fatalf("frames %d, min frames per iteration %d (%v)", r.Frames, r.MinFramesPerIteration(), err)
	}
	r, err = Parse("cfg.toml", "env = \"halfcheetah\"\nframes = 4000\niterations = 4\n[ppo]\nnum_envs = 3\n[controller]\nname = \"cfgtest\"\n[[controller.tune]]\nname = \"batch_size\"\nlow = 999.5\nhigh = 2000\n")
	if err != nil || r.MinFramesPerIteration() != 1002 { // ceil(999.5) = 1000 → 334 steps of 3
		t.Fatalf("min frames per iteration %d (%v), want 1002", r.MinFramesPerIteration(), err)
	}
	if _, err := Parse("cfg.toml", "env = \"halfcheetah\"\nframes = 4009\niterations = 4\n[ppo]\nnum_envs = 3\n[controller]\nname = \"cfgtest\"\n[[controller.tune]]\nname = \"batch_size\"\nlow = 999.5\nhigh = 2000\n"); err == nil {
		t.Fatal("4009 frames in 4 iterations of at least 1002 accepted")
	}
}

// train.csv logs the paper's four and every tuned key, in ppoconfig.Hyper's
// order; the paper's space and fixed keep the historical four columns.
func TestLoggedHyper(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string
	}{
		{"env = \"halfcheetah\"\n", "batch_size,clip,gae_lambda,lr"},
		{"env = \"halfcheetah\"\n[controller]\nname = \"fixed\"\n[[controller.tune]]\nname = \"gamma\"\nlow = 0.9\nhigh = 0.999\n", "batch_size,clip,gae_lambda,lr"},
		{"env = \"halfcheetah\"\n[controller]\nname = \"cfgtest\"\n[[controller.tune]]\nname = \"target_kl\"\nlow = 0.01\nhigh = 0.1\n[[controller.tune]]\nname = \"gamma\"\nlow = 0.9\nhigh = 0.999\n", "batch_size,clip,gae_lambda,lr,gamma,target_kl"},
	} {
		r, err := Parse("cfg.toml", tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(r.LoggedHyper(), ","); got != tc.want {
			t.Errorf("%q: logged %s, want %s", tc.text, got, tc.want)
		}
	}
}

// Each preset changes what it documents and nothing else; "rl" is the
// three options, "paper" undoes them, and misfits are errors naming the
// preset.
func TestPresets(t *testing.T) {
	hc := WithSet("controller.name=hypercontroller") // the defaults train fixed, which presets do not fit
	base, err := Default("pusher", hc)
	if err != nil {
		t.Fatal(err)
	}
	baseText, _ := base.Encode()
	intercept := func(r Run) bool {
		s, _ := r.Controller.MethodSettings("hypercontroller")
		return reflectField(s, "Intercept")
	}
	for _, tc := range []struct {
		spec      string
		intercept bool
		objective controller.Objective
		tuned     string
	}{
		{"paper", false, controller.Delta, "batch_size,clip,gae_lambda,lr"},
		{"intercept", true, controller.Delta, "batch_size,clip,gae_lambda,lr"},
		{"kframe", false, controller.DeltaPerKFrame, "batch_size,clip,gae_lambda,lr"},
		{"lr-scale", false, controller.Delta, "batch_size,clip,gae_lambda,lr_scale"},
		{"rl", true, controller.DeltaPerKFrame, "batch_size,clip,gae_lambda,lr_scale"},
		{"intercept+kframe", true, controller.DeltaPerKFrame, "batch_size,clip,gae_lambda,lr"},
		{"rl+paper", false, controller.Delta, "batch_size,clip,gae_lambda,lr"},
		{"intercept+kframe+period", true, controller.DeltaPerKFrame, "batch_size,clip,gae_lambda,lr"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			r, err := Default("pusher", hc, WithPreset(tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			sp, _ := r.Controller.Space()
			if period := strings.Contains(tc.spec, "period"); (r.Controller.Observe == ObservePeriod) != period {
				t.Fatalf("observe %q", r.Controller.Observe)
			}
			if intercept(r) != tc.intercept || r.Controller.Objective != tc.objective || strings.Join(sp.Names(), ",") != tc.tuned {
				t.Fatalf("intercept %v objective %s tuned %s", intercept(r), r.Controller.Objective, strings.Join(sp.Names(), ","))
			}
			if i := sp.Index("lr_scale"); i >= 0 {
				if p := sp.Param(i); p.Low != LRScaleLow || p.High != LRScaleHigh || p.Scale != controller.Log || !r.PPO.AnnealLR {
					t.Fatalf("lr_scale %+v, anneal_lr %v", p, r.PPO.AnnealLR)
				}
			}
			if tc.spec == "paper" {
				// The default starts from [ppo] and anneals a tuned lr;
				// paper differs from it in exactly those two keys.
				want := base
				want.Controller.Start, want.Controller.TunedLR = StartMethod, TunedLRReplace
				wantText, _ := want.Encode()
				if text, _ := r.Encode(); text != wantText {
					t.Fatalf("paper is not the default with start = method and tuned_lr = replace:\n%s\n---\n%s", text, wantText)
				}
			}
		})
	}
	if text, _ := base.Encode(); text != baseText {
		t.Fatal("a preset changed another run's config")
	}
	for _, tc := range []struct {
		spec, text, want string
	}{
		{"fast", "env = \"pusher\"\n", `unknown "fast"`},
		{"rl", "env = \"pusher\"\n", "fixed has none; name a controller"},
		{"intercept", "env = \"pusher\"\n[controller]\nname = \"cfgtest\"\n", "only hypercontroller has an intercept"},
		{"lr-scale", "env = \"pusher\"\n[controller]\nname = \"cfgtest\"\n[[controller.tune]]\nname = \"clip\"\nlow = 0.1\nhigh = 0.3\n", "does not tune lr"},
	} {
		_, err := Parse("cfg.toml", tc.text, WithPreset(tc.spec))
		if err == nil || !strings.Contains(err.Error(), "config cfg.toml: preset "+tc.spec) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %q: %v, want an error with %q", tc.spec, tc.text, err, tc.want)
		}
	}
	if err := CheckPreset("rl+bogus"); err == nil || !strings.Contains(err.Error(), "paper, intercept, kframe, lr-scale, period, rl") {
		t.Fatalf("CheckPreset: %v", err)
	}
}

func reflectField(s controller.Settings, name string) bool {
	return reflect.ValueOf(s).Elem().FieldByName(name).Bool()
}

// TestSeveralErrorsAllReported: a config with several problems reports all
// of them, each with its key, up to MaxErrors.
func TestSeveralErrorsAllReported(t *testing.T) {
	text := `env = "reacher"
seed = -1
bogus = 3
[ppo]
clip = 1.5
gamma = 2.0
num_envs = 0
nonsense = 1
[controller]
name = "nope"
`
	_, err := Parse("many.toml", text)
	var es *Errors
	if !errors.As(err, &es) {
		t.Fatalf("err = %v (%T), want *Errors", err, err)
	}
	msg := err.Error()
	for _, want := range []string{"config many.toml: 7 problems:", "seed: want an integer in [0, 2305843009213693951]", "bogus: unknown key", "ppo.nonsense: unknown key",
		"ppo.clip: want a value in (0, 1)", "ppo.gamma: want a value in (0, 1]", "ppo.num_envs:", "controller.name: unknown controller \"nope\""} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
	var first *Error
	if !errors.As(err, &first) || first.File != "many.toml" {
		t.Fatalf("errors.As(*Error) = %v", first)
	}
	// One problem keeps the single-line form.
	_, err = Parse("one.toml", "env = \"reacher\"\n[ppo]\nclip = 1.5\n")
	if err == nil || err.Error() != "config one.toml: ppo.clip: want a value in (0, 1), got 1.5" {
		t.Fatalf("single error: %v", err)
	}
	// Beyond MaxErrors the rest are counted.
	var b strings.Builder
	b.WriteString("env = \"reacher\"\n")
	for i := 0; i < MaxErrors+5; i++ {
		fmt.Fprintf(&b, "unknown%d = 1\n", i)
	}
	_, err = Parse("lots.toml", b.String())
	if !errors.As(err, &es) || len(es.List) != MaxErrors || es.More != 5 || !strings.Contains(err.Error(), "(and 5 more)") {
		t.Fatalf("lots: %v", err)
	}
}
