package slurm_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/experiment/slurm"
)

// A run folder whose Slurm task recorded a failure in slurm-task.txt is
// failed, with the task and the reason it gave.
func ExampleFolderStatus() {
	dir, err := os.MkdirTemp("", "run")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("env = \"reacher\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "train.csv"), []byte("iteration,frames\n0,2048\n"), 0o644)
	os.WriteFile(filepath.Join(dir, slurm.TaskFile), []byte("job=20_3\nattempt=0\nstate=failed\nexit=1\nreason=hyperctl: train: out of disk\n"), 0o644)
	rs, err := slurm.FolderStatus(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s after %d iteration, task %s: %s\n", rs.State, rs.Done, rs.Task, rs.Detail)
	// Output:
	// failed after 1 iteration, task 20_3: failed: hyperctl: train: out of disk
}
