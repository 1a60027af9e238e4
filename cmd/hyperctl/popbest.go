package main

import (
	"fmt"
	"github.com/hyperctl/hyperctl/experiment/population"
	"io"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// populationBestMember is dir itself, unless dir is a population folder
// (population.json, no config.toml): then it is the run folder of the
// population's best member, and a line on note says which. An unfinished
// population is an error that says how to name a member instead.
func populationBestMember(note io.Writer, dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, population.DefinitionFile)); err != nil {
		return dir, nil
	}
	if _, err := os.Stat(filepath.Join(dir, rundir.ConfigFile)); err == nil {
		return dir, nil
	}
	member, k, ret, err := population.BestMember(dir)
	if err != nil {
		return "", fmt.Errorf("%w; name a member's run folder instead ('hyperctl status %s' lists them)", err, dir)
	}
	fmt.Fprintf(note, "%s is a population: using its best member, member %d (final evaluation return %.2f): %s\n", dir, k, ret, member)
	return member, nil
}
