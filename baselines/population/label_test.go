package population

import "testing"

// A population's label is its method at the defaults, and names every
// setting that differs from them.
func TestLabel(t *testing.T) {
	halving := func(eta int, min int64, same bool) Settings {
		s := DefaultSettings(Halving)
		s.Eta, s.MinFrames, s.SameStart = eta, min, same
		return s
	}
	late := DefaultSettings(PBT)
	late.FirstExploit = 300000
	ttest := DefaultSettings(PB2).WithTTest()
	ttest10 := ttest
	ttest10.TTestLevel = 0.1
	gp := DefaultSettings(PB2)
	gp.PB2.C1 = 0.3
	mf := DefaultSettings(MFPBT)
	mf.Frequencies = []int{1, 2}
	q := DefaultSettings(PBT)
	q.Quantile, q.ResampleProbability = 0.2, 0.5
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{DefaultSettings(PBT), "pbt"},
		{DefaultSettings(PB2), "pb2"},
		{DefaultSettings(MFPBT), "mfpbt"},
		{DefaultSettings(RandomSearch), "random"},
		{DefaultSettings(Halving), "halving"},
		{halving(3, 1, true), "halving-same"},
		{halving(2, 1, true), "halving-eta2-same"},
		{halving(2, 100000, false), "halving-eta2-min100000"},
		{late, "pbt-late300000"},
		{ttest, "pb2-ttest"},
		{ttest10, "pb2-ttest10@0.1"},
		{gp, "pb2-gp" + gpSum(gp)},
		{mf, "mfpbt-f1x2"},
		{q, "pbt-q0.2-r0.5"},
	} {
		if got := c.s.Label(); got != c.want {
			t.Errorf("%+v: label %q, want %q", c.s, got, c.want)
		}
	}
	gp2 := gp
	gp2.PB2.C1 = 0.35
	if gpSum(gp) == gpSum(gp2) {
		t.Errorf("two GP settings share the label %q", gp.Label())
	}
}

// gpSum is the checksum part of a label with PB2's GP settings changed.
func gpSum(s Settings) string {
	l := s.Label()
	return l[len(l)-8:]
}
