package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/internal/ground/suggest"
)

// usageError marks errors in how the command was called (exit code 2).
// cmd, when set, is the command path ("hyperctl train"): the message is
// then printed under that name, once, with a pointer to its help.
type usageError struct {
	cmd string
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return &usageError{err: fmt.Errorf(format, a...)} }

// envError is the usage error of an unknown environment name given to
// flag, with the nearest registered one.
func envError(flag, name string) error {
	var names []string
	for _, s := range envs.List() {
		names = append(names, s.Name)
	}
	return usagef("%s: unknown environment %q%s; valid environments: %s", flag, name, suggest.DidYouMean(name, names, ""), strings.Join(names, ", "))
}

// controllerError is the usage error of an unknown controller name given
// to flag, with the nearest one (fixed included).
func controllerError(flag, name string) error {
	names := append(controller.Names(), configs.Fixed)
	return usagef("%s: unknown controller %q%s; valid controllers: %s", flag, name, suggest.DidYouMean(name, names, ""), strings.Join(names, ", "))
}

var (
	unknownFlag  = regexp.MustCompile(`^unknown flag: --(.+)$`)
	invalidValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([^"]+)" flag: (.*)$`)
)

// flagError rewords pflag's parse errors for cmd: an unknown flag names
// the nearest one, a value of the wrong type says what the flag wants
// instead of Go's parser message, and every one is printed once under the
// command's name with a pointer to its --help.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	var flags []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { flags = append(flags, f.Name) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(flags, f.Name) {
			flags = append(flags, f.Name)
		}
	})
	if m := unknownFlag.FindStringSubmatch(msg); m != nil {
		if hint := configs.ForeignFlag(m[1], flags); hint != "" {
			return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("unknown flag --%s; %s", m[1], hint)}
		}
		return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("unknown flag --%s%s", m[1], suggest.DidYouMean(m[1], flags, "--"))}
	}
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		if f := cmd.Flags().Lookup(m[2]); f != nil {
			want := "want " + configs.FlagWants(f.Value.Type())
			if _, ok := f.Value.(*configs.FramesValue); ok {
				want = m[3] // its own words
			}
			return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("--%s %q: %s", m[2], m[1], want)}
		}
	}
	return &usageError{cmd: cmd.CommandPath(), err: errors.New(msg)}
}
