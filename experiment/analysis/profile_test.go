package analysis

import "testing"

// TestProfileTitle: the performance profiles' title counts its
// environments in words that agree with the count.
func TestProfileTitle(t *testing.T) {
	for _, tc := range []struct {
		envs []string
		want string
	}{
		{[]string{"reacher"}, "Performance profiles: final return on 1 environment\n(reacher); bands: 95 % stratified-bootstrap CIs, 200 resamples"},
		{[]string{"pusher", "reacher"}, "Performance profiles: final return on 2 environments\n(pusher, reacher); bands: 95 % stratified-bootstrap CIs, 200 resamples"},
	} {
		st := &Stats{Score: "final return", NormEnvs: tc.envs, Bootstrap: Bootstrap{Resamples: 200}}
		if got := st.profileTitle(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.envs, got, tc.want)
		}
	}
}
