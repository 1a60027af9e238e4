package main

import (
	"os"
	"testing"

	"github.com/hyperctl/hyperctl/ppo"
)

// TestKernelsArgs: the kernel setting comes from --kernels (either form),
// else HYPERCTL_KERNELS, else pinned; commands that compute nothing
// (--help, status, report, envs, controllers, dashboard, version, the
// root alone, an unknown command) skip the kernel setup.
func TestKernelsArgs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     string // HYPERCTL_KERNELS ("" unset)
		args    []string
		mode    string
		compute bool
	}{
		{"train, default", "", []string{"train", "--env", "halfcheetah"}, ppo.KernelsPinned, true},
		{"train --kernels native", "", []string{"--kernels", "native", "train", "--env", "halfcheetah"}, ppo.KernelsNative, true},
		{"--kernels=native after the command", "", []string{"train", "--kernels=native"}, ppo.KernelsNative, true},
		{"the variable", "native", []string{"compare", "--config", "c.toml"}, ppo.KernelsNative, true},
		{"the flag over the variable", "native", []string{"--kernels", "pinned", "eval", "runs/r"}, ppo.KernelsPinned, true},
		{"train --help", "", []string{"train", "--help"}, ppo.KernelsPinned, false},
		{"-h", "", []string{"eval", "-h"}, ppo.KernelsPinned, false},
		{"--help", "", []string{"--help"}, ppo.KernelsPinned, false},
		{"the root alone", "", nil, ppo.KernelsPinned, false},
		{"status", "", []string{"status", "runs/r"}, ppo.KernelsPinned, false},
		{"report", "", []string{"--log-format", "json", "report", "runs"}, ppo.KernelsPinned, false},
		{"envs", "", []string{"envs"}, ppo.KernelsPinned, false},
		{"controllers", "", []string{"controllers"}, ppo.KernelsPinned, false},
		{"dashboard", "", []string{"dashboard", "runs"}, ppo.KernelsPinned, false},
		{"version", "", []string{"version"}, ppo.KernelsPinned, false},
		{"an unknown command", "", []string{"trian"}, ppo.KernelsPinned, false},
		{"after --", "", []string{"train", "--", "--kernels", "native"}, ppo.KernelsPinned, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(ppo.KernelsEnvVar, tc.env)
			if tc.env == "" {
				os.Unsetenv(ppo.KernelsEnvVar) // t.Setenv restores it afterwards
			}
			mode, compute := kernelsArgs(tc.args)
			if mode != tc.mode || compute != tc.compute {
				t.Errorf("kernelsArgs(%q) = %s, %v; want %s, %v", tc.args, mode, compute, tc.mode, tc.compute)
			}
		})
	}
}
