package run

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"tagged main module", debug.BuildInfo{Main: debug.Module{Path: module, Version: "v1.2.0"}}, "v1.2.0"},
		{"main module from a dirty tree", debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}, Settings: vcs}, "dev+0123456789ab-dirty"},
		{"main module, no VCS", debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}}, "dev"},
		{"a dependency", debug.BuildInfo{Main: debug.Module{Path: "example.com/mine", Version: "(devel)"}, Settings: vcs,
			Deps: []*debug.Module{{Path: module, Version: "v0.3.1"}}}, "v0.3.1"},
		{"a replaced dependency", debug.BuildInfo{Main: debug.Module{Path: "example.com/mine"},
			Deps: []*debug.Module{{Path: module, Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "../hyperctl"}}}}, "dev"},
	} {
		if got := versionOf(&tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
