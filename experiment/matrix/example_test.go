package matrix_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// A compare folder's layout: one run folder per cell, built and read back
// by the same package.
func ExampleManifest_Cells() {
	m := matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"fixed", "hypercontroller@rl"}, Seeds: []int64{0, 1}, Iterations: 100}
	for _, c := range m.Cells() {
		env, ctrl, seed, _ := matrix.ParseRunDir(c.Dir())
		fmt.Println(filepath.ToSlash(c.Dir()), env == c.Env && ctrl == c.Controller && seed == c.Seed)
	}
	// Output:
	// reacher/fixed/seed0 true
	// reacher/fixed/seed1 true
	// reacher/hypercontroller@rl/seed0 true
	// reacher/hypercontroller@rl/seed1 true
}

// The state of every run of a compare folder, from its run folders: one
// run has two rows of train.csv and no process writes it, the other has
// not started.
func ExampleCollect() {
	out, err := os.MkdirTemp("", "compare")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	m := matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"fixed"}, Seeds: []int64{0, 1}, Iterations: 100}
	if err := matrix.WriteManifest(out, m); err != nil {
		log.Fatal(err)
	}
	run := filepath.Join(out, matrix.RunDir("reacher", "fixed", 0))
	if err := os.MkdirAll(run, 0o755); err != nil {
		log.Fatal(err)
	}
	os.WriteFile(filepath.Join(run, "config.toml"), []byte("env = \"reacher\"\n"), 0o644)
	os.WriteFile(filepath.Join(run, "train.csv"), []byte("iteration,frames\n0,2048\n1,4096\n"), 0o644)
	read, err := matrix.ReadManifest(out)
	if err != nil {
		log.Fatal(err)
	}
	st, err := matrix.Collect(out, read, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range st.Runs {
		fmt.Printf("%s: %s, %d/%d iterations (%s)\n", filepath.ToSlash(r.Dir), r.State, r.Done, r.Iterations, r.Detail)
	}
	// Output:
	// reacher/fixed/seed0: missing, 2/100 iterations (unfinished and not queued)
	// reacher/fixed/seed1: missing, 0/100 iterations (not started)
}

// A cell's controller as report, status and the dashboard name it: the
// matrix's entry in a compare folder, the method and the population's size
// in a population folder.
func ExampleCellName() {
	dir, err := os.MkdirTemp("", "cellname")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	m := matrix.Manifest{Envs: []string{"halfcheetah"}, Controllers: []string{"pb2"}, Seeds: []int64{8, 9, 10, 11}}
	fmt.Println(matrix.CellName(dir, m, "pb2"))
	if err := os.WriteFile(filepath.Join(dir, matrix.PopulationFile), []byte("{}\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println(matrix.CellName(dir, m, "pb2"))
	// Output:
	// pb2
	// pb2-4
}
