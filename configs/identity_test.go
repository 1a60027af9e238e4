package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadIdentity reads what Encode wrote, and reads leniently: a key today's
// decoder refuses does not hide the run's identity.
func TestReadIdentity(t *testing.T) {
	r, err := Default("reacher", func(r *Run) { r.Seed, r.Frames, r.Controller.Name = 7, 50000, "hoof" })
	if err != nil {
		t.Fatal(err)
	}
	text, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte(text+"\n[ppo.removed_in_a_later_version]\nx = 1\n"), 0o644)
	if _, err := Load(path); err == nil {
		t.Fatal("the strict loader accepted an unknown key")
	}
	id, err := ReadIdentity(path)
	want := Identity{Env: r.Env, Controller: "hoof", Seed: 7, Iterations: r.Iterations, Frames: 50000}
	if err != nil || id != want {
		t.Fatalf("ReadIdentity = %+v, %v; want %+v", id, err, want)
	}
	os.WriteFile(path, []byte("env = [\n"), 0o644)
	if _, err := ReadIdentity(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("a broken file: %v; want an error naming it", err)
	}
	if _, err := ReadIdentity(filepath.Join(dir, "absent.toml")); !os.IsNotExist(err) {
		t.Fatalf("an absent file: %v; want not-exist", err)
	}
}
