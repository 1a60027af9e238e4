package dashboard_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/experiment/dashboard"
)

// The dashboard of a folder holding one stopped run: its overview, as the
// page reads it from /api/overview (a loopback request: no token needed).
func ExampleNewRuns() {
	root, err := os.MkdirTemp("", "runs")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	run := filepath.Join(root, "reacher-fixed-seed3")
	os.MkdirAll(run, 0o755)
	os.WriteFile(filepath.Join(run, "config.toml"), []byte("env = \"reacher\"\nseed = 3\niterations = 50\n[controller]\nname = \"fixed\"\n"), 0o644)
	os.WriteFile(filepath.Join(run, "train.csv"), []byte("iteration,frames,train_reward\n0,2048,-1.5\n1,4096,-0.5\n"), 0o644)

	src, err := dashboard.NewRuns(root, dashboard.RunsOptions{})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(dashboard.Handler(src, dashboard.Options{}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/api/overview")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var ov dashboard.Overview
	if err := json.NewDecoder(resp.Body).Decode(&ov); err != nil {
		log.Fatal(err)
	}
	for _, r := range ov.Runs {
		fmt.Printf("%s: %s %s seed %d, %s, %d of %d iterations, %d frames\n", r.ID, r.Env, r.Label, *r.Seed, r.State, r.Done, r.Iterations, r.Frames)
	}
	// Output:
	// reacher-fixed-seed3: reacher fixed seed 3, stopped, 2 of 50 iterations, 4096 frames
}
