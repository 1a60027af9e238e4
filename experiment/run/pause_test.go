package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/experiment/internal/member"
)

// A population member paused at frame targets and continued writes the
// rows of a run that never paused; without its configuration it refuses to
// train.
func TestPauseAndContinue(t *testing.T) {
	run := resumeConfig(t, "reacher", configs.Fixed, "")
	run.Controller.Name = configs.Population
	if err := run.Validate(); err != nil {
		t.Fatal(err)
	}
	given := controller.Config{96, 0.2, 0.95, 3e-4}
	dir := t.TempDir()
	whole, paused := filepath.Join(dir, "whole"), filepath.Join(dir, "paused")
	if err := train(t, run, Options{Out: whole, member: member.Generation{Given: given}}); err != nil {
		t.Fatal(err)
	}
	do := func(until int64, resume bool) Result {
		t.Helper()
		res, err := Train(context.Background(), plan(t, run), Options{Out: paused, member: member.Generation{Given: given, Until: until}, Resume: resume, Log: zerolog.Nop()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := do(300, false); !res.Paused || res.Frames < 300 || res.Frames >= 300+96 {
		t.Fatalf("first segment: %+v, want paused within one iteration after 300 frames", res)
	}
	if _, err := rundir.ReadSummary(paused); err == nil {
		t.Fatal("a paused run has a summary")
	}
	first := do(300, true)
	if !first.Paused {
		t.Fatalf("resumed at its target: %+v, want paused at once", first)
	}
	if res := do(500, true); !res.Paused || res.Frames < 500 {
		t.Fatalf("second segment: %+v", res)
	}
	if res := do(0, true); res.Paused || res.Summary.Iterations != run.Iterations {
		t.Fatalf("last segment: %+v", res)
	}
	for _, f := range []string{rundir.TrainCSV, rundir.EvalCSV} {
		if same, total := sameRows(t, paused, whole, f); same != total || total == 0 {
			t.Errorf("%s: %d/%d rows identical", f, same, total)
		}
	}
	_, err := Train(context.Background(), plan(t, run), Options{Out: filepath.Join(dir, "none"), Log: zerolog.Nop()})
	if err == nil || !strings.Contains(err.Error(), "population.Run") {
		t.Errorf("a member without its configuration: %v", err)
	}
	fixed := resumeConfig(t, "reacher", configs.Fixed, "")
	if _, err := Train(context.Background(), plan(t, fixed), Options{Out: filepath.Join(dir, "fixed"), member: member.Generation{Given: given}, Log: zerolog.Nop()}); err == nil {
		t.Error("a fixed run accepted a given configuration")
	}
}
