package main

import (
	"os"
	"strings"
	"syscall"

	"github.com/hyperctl/hyperctl/ppo"
)

// kernelsFlag is the root flag that chooses the float kernels.
const kernelsFlag = "kernels"

// computeFree are the commands that compute nothing with the float
// kernels: they start without setting them up.
var computeFree = map[string]bool{"help": true, "version": true, "envs": true, "controllers": true,
	"status": true, "report": true, "dashboard": true, "completion": true}

// setKernels puts the process on the float kernels --kernels (or
// HYPERCTL_KERNELS) chooses, pinned by default, before anything computes:
// in place (ppo.ApplyKernels) when the libraries allow it, else by starting
// again with the variables they read when they load. A command that
// computes nothing (computeFree, --help) skips it, and so does an unknown
// setting, which the command line then refuses (root's --kernels). It
// sets HYPERCTL_KERNELS to the setting, for the processes it starts.
func setKernels(args []string) {
	mode, compute := kernelsArgs(args)
	if !compute || ppo.CheckKernelsMode(mode) != nil {
		return
	}
	// The processes it starts (compare's and population's runs) inherit
	// the setting.
	_ = os.Setenv(ppo.KernelsEnvVar, mode)
	if ppo.ApplyKernels(mode) {
		return
	}
	if env := ppo.KernelsEnv(os.Environ(), mode); env != nil {
		if exe, err := os.Executable(); err == nil {
			_ = syscall.Exec(exe, os.Args, env) // returns only on failure: run on the kernels loaded
		}
	}
}

// kernelsArgs finds the kernel setting in the command line (--kernels X,
// --kernels=X; else HYPERCTL_KERNELS; else pinned) and whether the command
// may compute: not --help, -h, or a command of computeFree.
func kernelsArgs(args []string) (mode string, compute bool) {
	mode = ppo.KernelsPinned
	if v, ok := os.LookupEnv(ppo.KernelsEnvVar); ok {
		mode = v
	}
	cmd, _, err := newRootCmd().Find(args)
	compute = err == nil && cmd.HasParent() // the root alone prints its help
	for c := cmd; compute && c != nil; c = c.Parent() {
		compute = !computeFree[c.Name()]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return mode, compute
		case a == "--help" || a == "-h":
			compute = false
		case a == "--"+kernelsFlag && i+1 < len(args):
			mode = args[i+1]
			i++
		case strings.HasPrefix(a, "--"+kernelsFlag+"="):
			mode = strings.TrimPrefix(a, "--"+kernelsFlag+"=")
		}
	}
	return mode, compute
}
