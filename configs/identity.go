package configs

import (
	"fmt"
	"os"

	"github.com/BurntSushi/toml"
)

// Identity is what names a run in a listing: its environment, controller
// and seed, and its length.
type Identity struct {
	Env        string // as the config names it (a short name or a Gymnasium id)
	Controller string // a registered controller name, or Fixed
	Seed       int64
	Iterations int   // the run's length (with a frame budget, its cap)
	Frames     int64 // the frame budget (0: none)
}

// ReadIdentity reads a run's Identity from its config.toml at path,
// leniently as ReadObjective does: only these keys are decoded, and nothing
// is validated, so a config that an older hyperctl wrote, which today's
// strict decoder may refuse, is still listed. Errors name the file.
func ReadIdentity(path string) (Identity, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Identity{}, err
	}
	c := struct {
		Env        string `toml:"env"`
		Seed       int64  `toml:"seed"`
		Iterations int    `toml:"iterations"`
		Frames     int64  `toml:"frames"`
		Controller struct {
			Name string `toml:"name"`
		} `toml:"controller"`
	}{}
	if _, err := toml.Decode(string(b), &c); err != nil {
		return Identity{}, fmt.Errorf("%s: %w", path, err)
	}
	return Identity{Env: c.Env, Controller: c.Controller.Name, Seed: c.Seed, Iterations: c.Iterations, Frames: c.Frames}, nil
}
