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

func TestKernelsEnv(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		environ    []string
		want       []string
	}{
		{"native removes both", KernelsNative, []string{"HOME=/root", "OPENBLAS_CORETYPE=Haswell", "ATEN_CPU_CAPABILITY=avx2"}, []string{"HOME=/root"}},
		{"native: nothing to remove", KernelsNative, []string{"HOME=/root"}, nil},
		{"native keeps a prefix", KernelsNative, []string{"OPENBLAS_CORETYPEX=1", "ATEN_CPU_CAPABILITY="}, []string{"OPENBLAS_CORETYPEX=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := KernelsEnv(tc.environ, tc.mode); !slices.Equal(got, tc.want) {
				t.Errorf("KernelsEnv(%q, %s) = %q, want %q", tc.environ, tc.mode, got, tc.want)
			}
		})
	}
	if got, want := KernelsEnv([]string{"A=1"}, KernelsPinned), PinnedEnv([]string{"A=1"}); !slices.Equal(got, want) {
		t.Errorf("pinned: KernelsEnv %q, PinnedEnv %q", got, want)
	}
	for mode, ok := range map[string]bool{KernelsPinned: true, KernelsNative: true, "": false, "Haswell": false} {
		if err := CheckKernelsMode(mode); (err == nil) != ok {
			t.Errorf("CheckKernelsMode(%q) = %v", mode, err)
		}
	}
}
