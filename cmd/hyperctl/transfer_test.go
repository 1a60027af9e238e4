package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
)

// --transfer-from: usage errors for controllers that do not transfer,
// runtime errors naming a bad folder, and a one-iteration deltabo run that
// records the absolute folder in config.toml.
func TestTransferFromFlag(t *testing.T) {
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src", "reacher", "random", "seed0")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	base := configs.Base()
	csv.WriteString(strings.Join(rundir.TrainColumns(base.LoggedHyper()), ",") + "\n")
	for it := range 20 {
		obj := ""
		if it > 0 {
			obj = fmt.Sprint(0.01 * float64(it%7))
		}
		fmt.Fprintf(&csv, "%d,%d,%g,0,0,%s,1,,%d,%g,0.95,0.0003,0\n", it, 2048*(it+1), float64(it+1), obj, 1000+250*(it/5), 0.1+0.05*float64(it/5))
	}
	for name, text := range map[string]string{
		"train.csv":    csv.String(),
		"summary.json": "{}\n",
		"config.toml":  "[controller]\nobjective = \"delta\"\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"train, controller without transfer", []string{"train", "--env", "reacher", "--controller", "gpucb", "--transfer-from", tmp, "--out", filepath.Join(tmp, "a")}, 2, "--transfer-from: only for controllers that transfer"},
		{"compare without deltabo", []string{"compare", "--env", "reacher", "--controllers", "gpucb,fixed", "--transfer-from", tmp, "--out", filepath.Join(tmp, "b")}, 2, "none of --controllers gpucb,fixed"},
		{"missing folder", []string{"train", "--env", "reacher", "--controller", "deltabo", "--transfer-from", filepath.Join(tmp, "nope"), "--out", filepath.Join(tmp, "c")}, 1, filepath.Join(tmp, "nope") + ": no such folder"},
		{"no finished runs", []string{"train", "--env", "reacher", "--controller", "deltabo", "--transfer-from", empty, "--out", filepath.Join(tmp, "d")}, 1, empty + ": no finished runs"},
	} {
		o, e, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(o+e, c.want) {
			t.Errorf("%s: exit %d (want %d), output %q (want it to mention %q)", c.name, code, c.code, o+e, c.want)
		}
	}
	// A relative folder, made absolute in config.toml.
	out := filepath.Join(tmp, "run")
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, filepath.Join(tmp, "src"))
	if err != nil {
		t.Fatal(err)
	}
	o, e, code := runCLI(t, "train", "--env", "reacher", "--controller", "deltabo", "--transfer-from", rel, "--iterations", "1", "--threads", "1", "--out", out)
	if code != 0 {
		t.Fatalf("deltabo run: exit %d\n%s%s", code, o, e)
	}
	cfg, err := os.ReadFile(filepath.Join(out, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("transfer_from = %q", filepath.Join(tmp, "src")); !strings.Contains(string(cfg), want) {
		t.Errorf("config.toml does not record %s:\n%s", want, cfg)
	}
}
