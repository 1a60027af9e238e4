package configs

import (
	"fmt"
	"os"

	"github.com/BurntSushi/toml"

	"github.com/hyperctl/hyperctl/controller"
)

// ReadObjective returns the objective of the run whose config.toml is path
// ([controller] objective), read leniently: only that key is decoded, so a
// config written by an older hyperctl, which today's strict decoder may
// refuse, still says which objective its train.csv logged. A file or a key
// that is absent means the default objective. Errors name the file.
func ReadObjective(path string) (controller.Objective, error) {
	def := controller.DefaultSetup().Objective
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return def, nil
	}
	if err != nil {
		return 0, err
	}
	c := struct {
		Controller struct {
			Objective controller.Objective `toml:"objective"`
		} `toml:"controller"`
	}{}
	c.Controller.Objective = def
	if _, err := toml.Decode(string(b), &c); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return c.Controller.Objective, nil
}
