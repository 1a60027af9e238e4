package run

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/ppo"
)

// TestCheckKernels: a resume goes on when the checkpoint's kernels are
// this process's or unrecorded, and is refused, naming both, when they
// differ.
func TestCheckKernels(t *testing.T) {
	const now = "OpenBLAS Haswell, ATEN_CPU_CAPABILITY avx2"
	for _, tc := range []struct {
		name, was string
		refused   bool
	}{
		{"same kernels", now, false},
		{"a checkpoint from before the record", "", false},
		{"other kernels", "OpenBLAS SkylakeX, ATEN_CPU_CAPABILITY unset", true},
	} {
		err := checkKernels("runs/r", tc.was, now)
		if (err != nil) != tc.refused {
			t.Fatalf("%s: error %v, want refused %v", tc.name, err, tc.refused)
		}
		if err != nil && (!errors.Is(err, ErrInexactResume) || !strings.Contains(err.Error(), tc.was) ||
			!strings.Contains(err.Error(), now) || !strings.Contains(err.Error(), "ppo.ApplyKernels")) {
			t.Errorf("%s: the refusal %q does not name both kernels and ppo.ApplyKernels", tc.name, err)
		}
	}
}

// TestRunRecordsKernels: a run's checkpoints and summary.json record the
// kernels it computed with (ppo.Kernels); a resume from a checkpoint whose
// record names other kernels is refused, naming both, and leaves the run
// as it was; with its own kernels recorded the run resumes and finishes.
func TestRunRecordsKernels(t *testing.T) {
	run := resumeConfig(t, "reacher", "hypercontroller", "")
	dir := filepath.Join(t.TempDir(), "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Train(ctx, plan(t, run), Options{Out: dir, Log: zerolog.Nop(), Monitor: &cancelAt{at: 4, cancel: cancel}}); err == nil ||
		!strings.Contains(err.Error(), "checkpoint written") {
		t.Fatalf("stopped run: %v", err)
	}
	ck, _, err := rundir.ReadCheckpoint(dir)
	if err != nil || ck == nil {
		t.Fatalf("checkpoint: %v", err)
	}
	now := ppo.Kernels()
	if ck.Progress.Kernels != now {
		t.Fatalf("checkpoint records kernels %q, the process runs %q", ck.Progress.Kernels, now)
	}
	const other = "OpenBLAS SkylakeX, ATEN_CPU_CAPABILITY unset"
	for _, tc := range []struct {
		kernels string
		refused bool
	}{{other, true}, {now, false}} {
		ck.Progress.Kernels = tc.kernels
		if err := rundir.WriteCheckpoint(dir, *ck); err != nil {
			t.Fatal(err)
		}
		err := train(t, run, Options{Out: dir, Resume: true})
		if !tc.refused {
			if err != nil {
				t.Fatalf("resume on the run's own kernels: %v", err)
			}
			continue
		}
		if !errors.Is(err, ErrInexactResume) || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), now) {
			t.Fatalf("resume on other kernels: error %v, want a refusal naming %q and %q", err, other, now)
		}
		if _, serr := rundir.ReadSummary(dir); serr == nil {
			t.Fatal("the refused resume finished the run")
		}
	}
	if s := mustReadSummary(t, dir); s.Kernels != now {
		t.Errorf("summary.json records kernels %q, want %q", s.Kernels, now)
	}
}
