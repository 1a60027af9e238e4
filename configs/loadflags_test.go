package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failure of LoadOrDefault is the overrides' fault only when the config
// (a file, or env's built-in one) loads without them.
func TestOverridesBroke(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.toml"), filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(good, []byte("env = \"reacher\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("env = \"reacher\"\n[ppo]\nlr = -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	breaks := WithSet("ppo.lr=-1")
	for _, c := range []struct {
		name, file, env string
		o               []Override
		fails, broke    bool
	}{
		{"built-in, fine", "", "reacher", nil, false, false},
		{"built-in, broken by --set", "", "reacher", []Override{breaks}, true, true},
		{"no built-in for env", "", "nosuch", nil, true, false},
		{"file, broken by --set", good, "", []Override{breaks}, true, true},
		{"file bad on its own", bad, "", nil, true, false},
		{"missing file", filepath.Join(dir, "absent.toml"), "reacher", nil, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := LoadOrDefault(c.file, c.env, c.o...)
			if (err != nil) != c.fails || err == nil && r.Env != "reacher" {
				t.Fatalf("LoadOrDefault: %+v, %v; want failure %v", r.Env, err, c.fails)
			}
			if got := OverridesBroke(c.file, c.env, err); got != c.broke {
				t.Errorf("OverridesBroke(%v) = %v, want %v", err, got, c.broke)
			}
		})
	}
}

// RecordSettings writes the chosen method's defaults into the config (so
// config.toml alone reproduces the run), and nothing for fixed.
func TestRecordSettings(t *testing.T) {
	for _, c := range []struct {
		name   string
		record bool
	}{{"cfgtest", true}, {Fixed, false}} {
		r, err := Default("reacher", WithSet("controller.name="+c.name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.ResolveRecorded()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(p.Text, "[controller.cfgtest]"); got != c.record {
			t.Errorf("%s: ResolveRecorded's text has [controller.cfgtest]: %v, want %v\n%s", c.name, got, c.record, p.Text)
		}
		if err := r.RecordSettings(); err != nil {
			t.Fatal(err)
		}
		s, ok := r.Controller.Settings["cfgtest"].(*testSettings)
		if ok != c.record || ok && s.D != 10 {
			t.Errorf("%s: after RecordSettings, settings %v", c.name, r.Controller.Settings)
		}
	}
}
