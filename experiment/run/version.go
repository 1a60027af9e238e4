package run

import "runtime/debug"

// module is hyperctl's module path, as build information records it.
const module = "github.com/hyperctl/hyperctl"

// Version is hyperctl's version as the running binary's build information
// records it, what Train writes into the policies when Options.Version is
// empty: the module's version when it was built as a tagged dependency or
// main module; else "dev", with the VCS revision the binary was built
// from ("dev+0123456789ab", "-dirty" when the tree had changes) when
// hyperctl is the main module and the build recorded one.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return versionOf(bi)
}

// versionOf is Version for the build information bi.
func versionOf(bi *debug.BuildInfo) string {
	m := &bi.Main
	if m.Path != module {
		m = nil
		for _, d := range bi.Deps {
			if d.Path == module {
				m = d
				if d.Replace != nil {
					m = d.Replace
				}
			}
		}
	}
	if m != nil && m.Version != "" && m.Version != "(devel)" {
		return m.Version
	}
	if bi.Main.Path != module {
		return "dev"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return "dev"
	}
	return "dev+" + rev + dirty
}
