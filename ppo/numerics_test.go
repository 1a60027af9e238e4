package ppo

import (
	"slices"
	"testing"
)

func TestPinnedEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		environ []string
		capable bool
		want    []string
	}{
		{"adds both", []string{"HOME=/root"}, true, []string{"HOME=/root", "OPENBLAS_CORETYPE=Haswell", "ATEN_CPU_CAPABILITY=avx2"}},
		{"keeps the user's core type", []string{"OPENBLAS_CORETYPE=Zen"}, true, []string{"OPENBLAS_CORETYPE=Zen", "ATEN_CPU_CAPABILITY=avx2"}},
		{"an empty value is a choice", []string{"OPENBLAS_CORETYPE=", "ATEN_CPU_CAPABILITY=default"}, true, nil},
		{"both set: no restart", []string{"OPENBLAS_CORETYPE=Haswell", "ATEN_CPU_CAPABILITY=avx2"}, true, nil},
		{"a prefix is not the key", []string{"OPENBLAS_CORETYPEX=1"}, true, []string{"OPENBLAS_CORETYPEX=1", "OPENBLAS_CORETYPE=Haswell", "ATEN_CPU_CAPABILITY=avx2"}},
		{"no AVX2: unpinned", []string{"HOME=/root"}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pinnedEnv(tc.environ, tc.capable); !slices.Equal(got, tc.want) {
				t.Errorf("pinnedEnv(%q, %v) = %q, want %q", tc.environ, tc.capable, got, tc.want)
			}
		})
	}
}
