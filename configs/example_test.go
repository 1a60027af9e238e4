package configs_test

import (
	"fmt"
	"log"

	"github.com/hyperctl/hyperctl/configs"
)

// The built-in config of an environment with two command-line style
// overrides, as `hyperctl train --env reacher --set ppo.lr=1e-4 --set
// ppo.epochs=5` resolves it.
func ExampleDefault() {
	r, err := configs.Default("reacher", configs.WithSet("ppo.lr=1e-4", "ppo.epochs=5"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Env, r.Controller.Name, r.PPO.LR, r.PPO.Epochs, r.PPO.BatchSize)
	// Output: reacher fixed 0.0001 5 2048
}

// A config with a mistake: the error names the file, the key and what is
// allowed.
func ExampleParse() {
	_, err := configs.Parse("my.toml", "env = \"reacher\"\n[ppo]\nlr = -1\n")
	fmt.Println(err)
	// Output: config my.toml: ppo.lr: want a value in (0, 1], got -1
}
