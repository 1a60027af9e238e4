package population

import (
	"testing"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
)

// Define keeps each method's settings its own: the command line passes
// PBT's --resample and --quantile defaults (0.25) whatever the method, and
// they must reach only the methods that use them. MF-PBT perturbs without
// resampling (its default, 0): before this rule its populations resampled
// with probability 0.25.
func TestDefineMethodSettings(t *testing.T) {
	base := members(t)
	for _, c := range []struct {
		method, selection string
		resample          float64
		size              int
		wantResample      float64
		wantLabel         string
	}{
		{popmethod.PBT, "", 0.25, 4, 0.25, "pbt"},
		{popmethod.PBT, "", 0.5, 4, 0.5, "pbt-r0.5"},
		{popmethod.PBT, "", -1, 4, 0.25, "pbt"},
		{popmethod.PB2, "", 0.25, 4, 0.25, "pb2"},
		{popmethod.MFPBT, "", 0.25, 8, 0, "mfpbt"},
		{popmethod.MFPBT, "", -1, 8, 0, "mfpbt"},
		{popmethod.RandomSearch, "", 0.25, 4, 0.25, "random"},
		{popmethod.Halving, "", 0.25, 4, 0.25, "halving"},
	} {
		t.Run(c.wantLabel+"/"+c.method, func(t *testing.T) {
			spec := Spec{Method: c.method, Size: c.size, Seed: 1, Frames: 768, Ready: 256,
				Quantile: 0.25, Resample: c.resample, Selection: c.selection, Command: "test"}
			def, _, err := Define(base, spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := def.Settings.ResampleProbability; got != c.wantResample {
				t.Errorf("resample probability %v, want %v", got, c.wantResample)
			}
			if got := def.Settings.Label(); got != c.wantLabel {
				t.Errorf("label %q, want %q", got, c.wantLabel)
			}
		})
	}
}
