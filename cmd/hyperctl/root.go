package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/hypercontroller"
	"github.com/hyperctl/hyperctl/experiment/progress"
	"github.com/hyperctl/hyperctl/experiment/run"
	"github.com/hyperctl/hyperctl/internal/ground/termtext"
	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// app is the state shared by subcommands.
type app struct {
	logFormat string
	logLevel  string
	kernels   string // the float kernels (setKernels applied them before the command line was parsed)
	log       zerolog.Logger
}

func newRootCmd() *cobra.Command {
	a := &app{}
	root := &cobra.Command{
		Use:   "hyperctl",
		Short: "Online hyperparameter control for reinforcement-learning training",
		Long: `hyperctl trains PPO on the environments 'hyperctl envs' lists, and can tune
its hyperparameters while it trains.

By default ('fixed') a run trains with the hyperparameters of its config: no
controller beat them in the control study (docs/study.md; which controller to
use when: docs/advice.md). With --controller NAME, a controller chooses the
rollout batch size, PPO clip, GAE lambda and learning rate every few
iterations instead: hypercontroller (HyperController, Gornet et al.: a
learned predictor forecasts which values improve the training reward most),
or one of the others:
` + otherControllers() + `.
'hyperctl controllers' describes each; 'hyperctl compare' trains several side
by side, and 'hyperctl report' ranks them.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := ppo.CheckKernelsMode(a.kernels); err != nil {
				return usagef("--%s: %v", kernelsFlag, err)
			}
			return a.setupLog(cmd.ErrOrStderr())
		},
	}
	kernelsDefault := ppo.KernelsPinned
	if v, ok := os.LookupEnv(ppo.KernelsEnvVar); ok {
		kernelsDefault = v
	}
	root.PersistentFlags().StringVar(&a.kernels, kernelsFlag, kernelsDefault, "float kernels: pinned (OpenBLAS Haswell, ATen avx2: the same run on every x86-64 CPU with AVX2 and FMA) or native (the libraries' own choice for this CPU); "+ppo.KernelsEnvVar+" sets the default. A run records its kernels and resumes only on the same ones")
	root.PersistentFlags().StringVar(&a.logFormat, "log-format", "auto", "log format: auto (console on a terminal, JSON otherwise), console or json")
	root.PersistentFlags().StringVar(&a.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	root.SetFlagErrorFunc(flagError)
	foldHelp(root)
	root.AddCommand(newVersionCmd(), newEnvsCmd(), newControllersCmd(), newTrainCmd(a), newCompareCmd(a), newReportCmd(a), newStatusCmd(a))
	root.AddCommand(newBenchCmd(a), newEvalCmd(a), newJudgeCmd(a), newRenderCmd(a), newServeCmd(a), newDashboardCmd(a), newPopulationCmd(a))
	for _, c := range root.Commands() {
		wrapArgs(c)
	}
	return root
}

// foldHelp fits every command's --help to the terminal it is printed on:
// the flags' descriptions wrap under their column (pflag's
// FlagUsagesWrapped) and the long text folds (termtext), its tables under
// their description's column (termtext.FoldColumns), so that no line
// wraps at 80 columns; the examples fold as a shell reads them (a " \"
// ending each broken line). A pipe gets the help whole.
func foldHelp(root *cobra.Command) {
	// cobra renders the usage into a buffer, so the width is stdout's,
	// where help goes.
	width := func() int { return termtext.Width(os.Stdout) }
	cobra.AddTemplateFunc("foldedFlags", func(fs *pflag.FlagSet) string { return fs.FlagUsagesWrapped(max(width()-1, 0)) })
	cobra.AddTemplateFunc("folded", func(text string) string { return termtext.FoldColumns(text, width()) })
	cobra.AddTemplateFunc("foldedShell", func(text string) string { return termtext.FoldShell(text, width()) })
	cobra.AddTemplateFunc("foldedUnder", func(pad int, text string) string { return termtext.FoldAt(text, width(), pad+3) })
	root.SetUsageTemplate(strings.NewReplacer(
		".LocalFlags.FlagUsages", "foldedFlags .LocalFlags",
		".InheritedFlags.FlagUsages", "foldedFlags .InheritedFlags",
		"  {{.UseLine}}", `{{folded (print "  " .UseLine)}}`,
		"{{.Example}}", "{{foldedShell .Example}}",
		"  {{rpad .Name .NamePadding }} {{.Short}}", `{{foldedUnder .NamePadding (print "  " (rpad .Name .NamePadding) " " .Short)}}`,
	).Replace(root.UsageTemplate()))
	root.SetHelpTemplate(strings.Replace(root.HelpTemplate(), "{{with (or .Long .Short)}}{{. | trimTrailingWhitespaces}}",
		"{{with (or .Long .Short)}}{{folded . | trimTrailingWhitespaces}}", 1))
}

// otherControllers lists the registered controllers other than
// HyperController, from the registry.
func otherControllers() string {
	var out []string
	for _, n := range controller.Names() {
		if n != hypercontroller.Name {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// wrapArgs turns argument-validation failures into usage errors, and
// names the command in the usage errors its RunE returns, so they are
// printed once under its name with a pointer to its --help.
func wrapArgs(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			err := run(cmd, args)
			var ue *usageError
			if errors.As(err, &ue) && ue.cmd == "" {
				msg := strings.TrimPrefix(words.Say(ue.err, flagWords), cmd.Name()+": ") // the library's advice, in flags
				return &usageError{cmd: cmd.CommandPath(), err: errors.New(msg)}
			}
			return err
		}
	}
	if c.Args != nil {
		orig := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := orig(cmd, args); err != nil {
				return &usageError{cmd: cmd.CommandPath(), err: err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		wrapArgs(sub)
	}
}

// terminal is the terminal a progress bar draws on: cmd's stderr when it
// is one and the logs are not JSON; nil otherwise (log lines instead).
func (a *app) terminal(cmd *cobra.Command) *os.File {
	return progress.Terminal(cmd.ErrOrStderr(), a.logFormat == "json")
}

// executable is the path of this hyperctl binary, symbolic links
// resolved, for the child processes and batch jobs that run it.
func executable() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the hyperctl executable: %w", err)
	}
	if p, err := filepath.EvalSymlinks(self); err == nil {
		self = p
	}
	return self, nil
}

func (a *app) setupLog(w io.Writer) error {
	lvl, err := zerolog.ParseLevel(strings.ToLower(a.logLevel))
	if err != nil || a.logLevel == "" {
		return usagef("--log-level %q: want debug, info, warn or error", a.logLevel)
	}
	format := a.logFormat
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "console"
		}
	}
	switch format {
	case "json":
		a.log = zerolog.New(w).Level(lvl).With().Timestamp().Logger()
	case "console":
		// On a terminal each line folds at spaces to its width
		// (termtext.Writer): no log line wraps at 80 columns.
		a.log = zerolog.New(zerolog.ConsoleWriter{Out: termtext.Writer(w), TimeFormat: time.TimeOnly}).Level(lvl).With().Timestamp().Logger()
	default:
		return usagef("--log-format %q: want auto, console or json", a.logFormat)
	}
	return nil
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print hyperctl's version and the native libraries it links",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := versionString()
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "hyperctl %s\n", v)
			fmt.Fprintf(w, "go        %s\n", goVersion())
			fmt.Fprintf(w, "mujoco    %s\n", mujocoVersion())
			fmt.Fprintf(w, "libtorch  1.13.1 (Debian, CPU) through gotch v0.7.0\n")
			return nil
		},
	}
}

// versionString is hyperctl's version: the -ldflags one, else what the
// build information records (run.Version).
func versionString() string {
	if version != "dev" {
		return version
	}
	return run.Version()
}

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return "unknown"
}

// say prints a message of a command on its stdout (sayTo).
func say(cmd *cobra.Command, format string, a ...any) { sayTo(cmd.OutOrStdout(), format, a...) }

// sayTo prints a message on w, folded to the terminal's width (whole into
// a pipe or a log file).
func sayTo(w io.Writer, format string, a ...any) {
	io.WriteString(w, termtext.Fold(fmt.Sprintf(format, a...), termtext.Width(w)))
}
