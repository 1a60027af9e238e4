package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
)

// Identity is what a run folder says its run is: the environment's short
// name, the controller (a compare folder's variants, such as
// hypercontroller@rl, are named by their folder, not here) and the seed,
// and the run's planned length.
type Identity struct {
	Env        string `toml:"env"`
	Controller string `toml:"-"`
	Seed       int64  `toml:"seed"`
	Iterations int    `toml:"iterations"` // the config's iterations (0: unknown)
	Frames     int64  `toml:"frames"`     // the config's frame budget (0: none)
}

// ReadIdentity reads the identity of the run in dir from its config.toml,
// leniently (only these keys are decoded, so a config an older hyperctl
// wrote still answers), or, without one, from summary.json. Errors name
// the file.
func ReadIdentity(dir string) (Identity, error) {
	var id Identity
	path := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s, err := ReadSummary(dir)
		if err != nil {
			return id, fmt.Errorf("%s: no %s, and %w", dir, ConfigFile, err)
		}
		return Identity{Env: s.Env, Controller: s.Controller, Seed: s.Seed, Iterations: s.Iterations, Frames: s.FrameBudget}, nil
	case err != nil:
		return id, err
	}
	c := struct {
		Identity
		Ctl struct {
			Name string `toml:"name"`
		} `toml:"controller"`
	}{}
	if _, err := toml.Decode(string(b), &c); err != nil {
		return id, fmt.Errorf("%s: %w", path, err)
	}
	id = c.Identity
	id.Controller = c.Ctl.Name
	if id.Env == "" || id.Controller == "" {
		return id, fmt.Errorf("%s: no env or no [controller] name", path)
	}
	return id, nil
}
