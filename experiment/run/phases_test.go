package run

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/ppo"
)

// TestPhasesCountEachSecondOnce: the time split's phases add up to the wall
// time of an iteration, with a trial search (HOOF) counted once, under the
// controller, though the trainer's update contains it too.
func TestPhasesCountEachSecondOnce(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	cases := []struct {
		name       string
		search     time.Duration // inside the update and the controller time
		controller time.Duration // Suggest, Observe and the search
		wantUpdate time.Duration
	}{
		{"no controller", 0, 0, ms(500)},
		{"controller without trials", 0, ms(40), ms(500)},
		{"trials", ms(300), ms(340), ms(200)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := ppo.IterStats{Elapsed: ms(1000), EnvTime: ms(200), InferenceTime: ms(100), GAETime: ms(100), UpdateTime: ms(500)}
			if c.search > 0 {
				st.Trial = &ppo.TrialStats{SearchTime: c.search}
			}
			var p phases
			p.iteration(ppo.Report{Stats: st, ControllerTime: c.controller})
			// The wall time: the trainer's iteration, and the controller's
			// time outside it (its Suggest and Observe).
			wall := st.Elapsed + c.controller - c.search
			var buf bytes.Buffer
			p.log(zerolog.New(&buf), wall)
			var line map[string]any
			if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
				t.Fatalf("time split line %q: %v", buf.String(), err)
			}
			if got := line["update_s"].(float64); got != c.wantUpdate.Seconds() {
				t.Errorf("update_s = %v, want %v", got, c.wantUpdate.Seconds())
			}
			if got := line["controller_s"].(float64); got != c.controller.Seconds() {
				t.Errorf("controller_s = %v, want %v", got, c.controller.Seconds())
			}
			if got := line["unaccounted_s"].(float64); got != 0 {
				t.Errorf("unaccounted_s = %v, want 0 (every millisecond counted once): %s", got, buf.String())
			}
		})
	}
}
