package suggest

import "testing"

func TestNearest(t *testing.T) {
	keys := []string{"batch_size", "clip", "gae_lambda", "lr", "gamma", "epochs"}
	flags := []string{"env", "iterations", "seed", "frames", "force"}
	for _, tc := range []struct {
		name  string
		valid []string
		want  string
	}{
		{"clp", keys, "clip"},          // one letter missing
		{"CLIP", keys, ""},             // the name itself, in another case
		{"gamm", keys, "gamma"},        // within the distance
		{"epoch", keys, "epochs"},      // a plural
		{"iters", flags, "iterations"}, // letters in order, same first two
		{"frame", flags, "frames"},     // nearest of two candidates
		{"learning_rate", keys, ""},    // nothing close
		{"zz", flags, ""},              // too short for the subsequence rule
		{"q", []string{"d", "s"}, ""},  // every letter replaced is no typo
		{"dd", []string{"d", "s"}, "d"},
		{"halfchetah", []string{"halfcheetah", "hopper"}, "halfcheetah"},
	} {
		if got := Nearest(tc.name, tc.valid); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		name, prefix, want string
	}{
		{"clp", "ppo.", " (did you mean ppo.clip?)"},
		{"iters", "--", " (did you mean --iterations?)"},
		{"bogus", "--", ""},
	} {
		if got := DidYouMean(tc.name, []string{"clip", "iterations", "lr"}, tc.prefix); got != tc.want {
			t.Errorf("DidYouMean(%q, %q) = %q, want %q", tc.name, tc.prefix, got, tc.want)
		}
	}
}

func TestUnknownKey(t *testing.T) {
	keys := []string{"d", "s", "lambda", "bonus"}
	for _, tc := range []struct{ name, prefix, want string }{
		{"lamda", "controller.hypercontroller.", "unknown key (did you mean controller.hypercontroller.lambda?)"},
		{"dd", "", "unknown key (did you mean d?)"},
		{"nonsense", "", "unknown key; allowed: d, s, lambda, bonus"},
	} {
		if got := UnknownKey(tc.name, keys, tc.prefix); got != tc.want {
			t.Errorf("UnknownKey(%q, %q) = %q, want %q", tc.name, tc.prefix, got, tc.want)
		}
	}
}
