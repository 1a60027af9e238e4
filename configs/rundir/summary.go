package rundir

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// Summary is summary.json: the record of a finished run.
type Summary struct {
	Env              string             `json:"env"`
	Controller       string             `json:"controller"`
	Seed             int64              `json:"seed"`
	Iterations       int                `json:"iterations"`             // iterations trained (fewer than the config's when a frame budget ended the run)
	FrameBudget      int64              `json:"frame_budget,omitempty"` // the config's frames (absent: none)
	Frames           int64              `json:"frames"`                 // frames trained
	WallTimeS        float64            `json:"wall_time_s"`
	ControllerTimeS  float64            `json:"controller_time_s"`
	FinalTrainReward float64            `json:"final_train_reward"`
	FinalEvalReturn  *float64           `json:"final_eval_return,omitempty"`
	FinalHyper       map[string]float64 `json:"final_hyperparameters,omitempty"` // the tuned values in force at the last iteration (none without a controller)
	RejectedUpdates  int                `json:"rejected_updates"`
	FramesPerSecond  float64            `json:"frames_per_second"`
	Kernels          string             `json:"kernels,omitempty"` // the float kernels the run computed with (ppo.Kernels)
	// HyperctlVersion is the version of the hyperctl that trained the run,
	// with its commit when built from a checkout ("dev+<commit>"): the
	// build a study pins (absent: none given, or written before it was
	// recorded).
	HyperctlVersion string `json:"hyperctl_version,omitempty"`
}

// WriteSummary writes summary.json atomically.
func WriteSummary(dir string, s Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return safefile.WriteAtomic(filepath.Join(dir, SummaryFile), append(b, '\n'))
}

// ReadSummary reads summary.json.
func ReadSummary(dir string) (Summary, error) {
	var s Summary
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %w", filepath.Join(dir, SummaryFile), err)
	}
	return s, nil
}
