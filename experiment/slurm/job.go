package slurm

import (
	"bytes"
	"fmt"
	"strings"
)

// Job is one batch job that is not an array: a single hyperctl command, such
// as a population's exploit/explore step between two generations' arrays
// (the dependency is given to sbatch when it is submitted).
type Job struct {
	Binary  string   // absolute path of hyperctl
	LogDir  string   // absolute folder of Slurm's output file
	WorkDir string   // absolute working folder
	Name    string   // the output file's prefix: LogDir/<Name>_<job>.out
	Args    []string // hyperctl's arguments
	Options Options  // partition, time, memory, name and extra lines; one CPU
}

// RenderJob writes the batch script of a Job: it runs hyperctl once with
// the arguments, on one CPU, its output appended to LogDir.
func RenderJob(j Job) (string, error) {
	if err := j.Options.Validate(); err != nil {
		return "", err
	}
	for _, p := range []string{j.Binary, j.LogDir, j.WorkDir} {
		if !strings.HasPrefix(p, "/") {
			return "", fmt.Errorf("slurm: %q is not an absolute path: the job runs on another machine, in another folder", p)
		}
	}
	if !nameRe.MatchString(j.Name) {
		return "", fmt.Errorf("slurm: job name %q: want letters, digits, _ . , - ...", j.Name)
	}
	o := j.Options
	var b bytes.Buffer
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("#!/bin/bash\n# Written by hyperctl: one command as one Slurm job.\n")
	if o.JobName != "" {
		w("#SBATCH --job-name=%s\n", o.JobName)
	}
	w("#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n")
	o.resourceLines(w)
	w("#SBATCH --open-mode=append\n")
	w("#SBATCH --chdir=%s\n", shellQuoteSbatch(j.WorkDir))
	w("#SBATCH --output=%s\n", shellQuoteSbatch(j.LogDir+"/"+j.Name+"_%j.out"))
	for _, a := range o.SbatchArgs {
		w("#SBATCH %s\n", a)
	}
	w("\nexec %s --log-format json %s\n", shellQuote(j.Binary), shellJoin(j.Args))
	return b.String(), nil
}
