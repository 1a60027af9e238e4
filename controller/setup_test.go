package controller_test

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	_ "github.com/hyperctl/hyperctl/baselines/all"
	"github.com/hyperctl/hyperctl/controller"
)

// incompatible is BurntSushi's type error, after tomlPrefix.
var incompatible = regexp.MustCompile(`^incompatible types: TOML value has type (.*); destination has type (.*)$`)

// tomlPrefix is what BurntSushi's decoder puts before a type error.
var tomlPrefix = regexp.MustCompile(`^toml: line \d+ \(last key "[^"]+"\): |^line \d+: `)

// DecodeSettings decodes a table as BurntSushi/toml decodes the same table
// written in a config file: the same values, the same type errors, the same
// unknown keys. Checked for every registered method and every setting, with
// a value of each TOML type.
func TestDecodeSettingsAsTOML(t *testing.T) {
	values := []any{int64(3), int64(-1), 2.5, 1e300, "delta", "x", true, []any{int64(1)}, map[string]any{"a": int64(1)}}
	for _, e := range controller.Entries() {
		keys := controller.TOMLKeys(e.Defaults())
		for _, k := range append(keys, "nonsense", strings.ToUpper(firstOr(keys, "x"))) {
			for _, v := range values {
				table := map[string]any{k: v}
				t.Run(fmt.Sprintf("%s/%s=%v", e.Name, k, v), func(t *testing.T) {
					got, gotErr := controller.DecodeSettings(e.Name, table)
					want, wantErr := viaTOML(t, e, table)
					if (gotErr == nil) != (wantErr == nil) {
						t.Fatalf("DecodeSettings: %v; via TOML: %v", gotErr, wantErr)
					}
					if gotErr != nil {
						if g, w := gotErr.Error(), wantErr.Error(); g != w {
							t.Fatalf("DecodeSettings: %q\nvia TOML:       %q", g, w)
						}
						return
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("DecodeSettings: %+v; via TOML: %+v", got, want)
					}
				})
			}
		}
	}
}

func firstOr(s []string, d string) string {
	if len(s) > 0 {
		return s[0]
	}
	return d
}

// viaTOML decodes table as configs decodes a [controller.<name>] table:
// BurntSushi over the defaults, then the undecoded keys, then Validate,
// with the errors DecodeSettings documents.
func viaTOML(t *testing.T, e controller.Entry, table map[string]any) (controller.Settings, error) {
	var sb strings.Builder
	if err := toml.NewEncoder(&sb).Encode(table); err != nil {
		t.Fatal(err)
	}
	s := e.Defaults()
	md, err := toml.Decode(sb.String(), s)
	if err != nil {
		var pe toml.ParseError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		key := ""
		for k := range table {
			key = k
		}
		msg = tomlPrefix.ReplaceAllString(msg, "")
		if m := incompatible.FindStringSubmatch(msg); m != nil { // worded as configs words it
			msg = controller.TypeMismatchMsg(controller.WrittenTOML(table[key]), m[1], m[2])
		}
		return nil, &controller.SettingError{Key: key, Msg: msg}
	}
	var unknown []error
	for _, k := range md.Undecoded() {
		unknown = append(unknown, &controller.SettingError{Key: k.String(), Msg: controller.UnknownSettingMsg(s, k.String(), "")})
	}
	if len(unknown) > 0 {
		return nil, errors.Join(unknown...)
	}
	if err := s.Validate(); err != nil {
		return nil, &controller.SettingError{Msg: err.Error()}
	}
	return s, nil
}

// Resolve checks the run's seed and iterations, resolves "auto" through the
// settings' recommendation and adapts the settings to the run.
func TestSetupResolve(t *testing.T) {
	s := controller.DefaultSetup()
	set, opts, err := s.Resolve()
	if err != nil || set == nil || opts.Interval != 5 || opts.Objective != controller.Delta || opts.Seed != 0 {
		t.Fatalf("default setup: %v %+v %v", set, opts, err)
	}
	for _, tc := range []struct {
		edit func(*controller.Setup)
		want string
	}{
		{func(s *controller.Setup) { s.Seed = -1 }, "seed: want an integer in [0, 2305843009213693951], got -1"},
		{func(s *controller.Setup) { s.Iterations = 0 }, "iterations: want an integer in [1, 10000000], got 0"},
		{func(s *controller.Setup) { s.Interval = -2 }, `controller.interval: want an integer >= 1 or "auto", got -2`},
		{func(s *controller.Setup) { s.Interval = controller.IntervalAuto }, `controller.interval: "auto" needs a controller that recommends its interval (bilevel); hypercontroller does not, set an integer`},
	} {
		s := controller.DefaultSetup()
		tc.edit(&s)
		if _, _, err := s.Resolve(); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
	s = controller.DefaultSetup()
	s.Method, s.Interval, s.Iterations, s.StepsPerIteration = "bilevel", controller.IntervalAuto, 1000, 320
	set, opts, err = s.Resolve()
	if err != nil || opts.Interval < 1 {
		t.Fatalf("bilevel auto: %+v %v", opts, err)
	}
	if _, ok := set.(controller.RunAdapter); !ok {
		t.Fatalf("bilevel settings %T are not a RunAdapter", set)
	}
}
