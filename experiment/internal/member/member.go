// Package member holds what a population gives the run of one of its
// members for one generation: the settings of experiment/run's TrainMember
// that no other run takes. It sits apart from experiment/run so that
// experiment/population, which plans the generations, builds without cgo
// (experiment/run trains with libtorch).
package member

import (
	"context"
	"errors"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/controller"
)

// Generation is a member's part of one generation.
type Generation struct {
	// Given is the configuration of the tuned keys of the member (a run
	// whose controller is configs.Population) for this generation; such a
	// run needs it, and any other run refuses it.
	Given controller.Config
	// GivenSince is the frame count from which Given has been the
	// configuration in force for every row of the folder (the member's
	// lineage). Resuming from a checkpoint with fewer frames (the previous
	// checkpoint, when the newest fails its check) would redo rows with
	// settings other than theirs, so it is refused (ErrInexactResume).
	GivenSince int64
	// Until pauses the run after the first iteration at which it has
	// collected Until frames (0: never), when that is before its end: the
	// checkpoint and policy-final are written and the run returns paused,
	// without a summary. A run whose checkpoint already holds Until frames
	// returns at once.
	Until int64
	// Episodes records every finished training episode's return in the
	// run folder's episodes.csv (rundir.EpisodeLog), for a population's
	// t-test selection.
	Episodes bool
}

// ErrInexactResume is wrapped by the error of a resume that would redo
// rows with settings other than those they were trained with
// (Generation.GivenSince).
var ErrInexactResume = errors.New("no exact resume")

// Trainer trains (or resumes) the member run in the folder out with plan
// through generation g, logging to log and recording version in its
// policies; paused reports that it stopped at g.Until rather than at its
// end. experiment/run's TrainMember is the one trainer.
type Trainer func(ctx context.Context, plan *configs.Plan, out string, g Generation, log zerolog.Logger, version string) (paused bool, err error)

// Graft builds the trainer snapshot of a member that takes a donor's
// weights but keeps its own random state (MF-PBT's receivers): ppo.Graft,
// which needs cgo, so experiment/run sets it when it is linked (its init)
// and experiment/population reads it here. Nil when no trainer is linked.
var Graft func(donor, own []byte) ([]byte, error)
