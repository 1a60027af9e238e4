package service

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hyperctl/hyperctl/controller"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
)

// FieldError is a bad request: Field names the request field (dotted, with
// list indices), Msg says what is wrong and what is allowed.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErr(field, format string, a ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// Limits on a session's definition, so that one request cannot make the
// server allocate without bound.
const (
	maxParams   = 64
	maxNameLen  = 128
	maxSettings = 256
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$`)

// validID checks a client-chosen session id.
func validID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%q: want 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'", id)
	}
	return nil
}

// built is a validated session definition with its controller.
type built struct {
	ctl      *controller.Controller
	method   string
	settings *structpb.Struct // the method's settings, defaults filled in
	interval int
	space    controller.Space
}

// build validates a create request exactly as `hyperctl train` validates a
// config's [controller] table, and builds the controller. The request
// resolves through controller.Setup, as a run's config does, starting from
// controller.DefaultSetup (the CLI's defaults: interval 5, objective delta,
// 1000 iterations) for the fields it leaves unset. The method's settings go
// through controller.DecodeSettings, the strict decoder with the CLI's
// messages, re-keyed to the request's field names.
//
// Two things differ from a config file, on purpose:
//   - the space's parameter names are free: the trainer is not necessarily
//     hyperctl's PPO, so any name is accepted (the CLI accepts only PPO's
//     tunable ones); bounds and scales are checked by controller.NewSpace,
//     as the CLI does;
//   - settings.transfer_from (deltabo) is refused: a client must not make
//     the server read a path of its choosing.
func build(req *hyperctlv1.CreateSessionRequest) (*built, error) {
	if req.GetSessionId() != "" {
		if err := validID(req.GetSessionId()); err != nil {
			return nil, &FieldError{Field: "session_id", Msg: err.Error()}
		}
	}
	space, err := buildSpace(req.GetSpace())
	if err != nil {
		return nil, err
	}
	name := req.GetMethod()
	if name == "" {
		name = controller.DefaultMethod
	}
	entry, err := controller.Lookup(name)
	if err != nil {
		return nil, &FieldError{Field: "method", Msg: err.Error()}
	}
	table, err := settingsTable(req.GetSettings())
	if err != nil {
		return nil, err
	}
	if _, ok := table["transfer_from"]; ok {
		return nil, fieldErr("settings.transfer_from", "not accepted by hyperctl serve: a client must not make the server read a path of its choosing; a transfer run trains locally, with transfer_from in its own config")
	}

	// The trainer is the client's, not hyperctl's PPO: the server does not
	// know its gradient steps per iteration, so settings that adapt to them
	// (bilevel's steps_per_iteration) take them from the settings table
	// only (StepsPerIteration 0: unknown).
	setup := controller.DefaultSetup()
	setup.Method, setup.Seed = entry.Name, req.GetSeed()
	switch {
	case req.GetIntervalAuto() && req.GetInterval() != 0:
		return nil, fieldErr("interval", "set either interval (%d) or interval_auto, not both", req.GetInterval())
	case req.GetIntervalAuto():
		setup.Interval = controller.IntervalAuto
	case req.GetInterval() != 0:
		setup.Interval = int(req.GetInterval())
	}
	if req.GetObjective() != "" {
		if setup.Objective, err = controller.ParseObjective(req.GetObjective()); err != nil {
			return nil, &FieldError{Field: "objective", Msg: err.Error()}
		}
	}
	if req.GetIterations() != 0 {
		setup.Iterations = int(req.GetIterations())
	}
	if setup.Settings, err = controller.DecodeSettings(entry.Name, table); err != nil {
		return nil, rekey(err, entry)
	}
	settings, opts, err := setup.Resolve()
	if err != nil {
		return nil, rekey(err, entry)
	}
	if start := req.GetStart(); len(start) > 0 {
		if err := space.Validate(controller.Config(start)); err != nil {
			return nil, fieldErr("start", "%v", err)
		}
		opts.Start = controller.Config(start) // controller.New copies it
	}
	ctl, err := controller.Build(entry.Name, settings, space, opts)
	if err != nil {
		return nil, &FieldError{Field: "settings", Msg: err.Error()}
	}
	if _, trials := ctl.Method().(controller.Trials); trials {
		return nil, fieldErr("method", "%s chooses among trial updates on the batch a trainer has just collected, which only hyperctl train runs; a client of the service cannot, so choose another method", entry.Name)
	}
	if _, rule := ctl.Method().(controller.LRRule); rule {
		return nil, fieldErr("method", "%s moves the learning rate within the update, from a KL divergence that only hyperctl train measures; a client of the service cannot, so choose another method", entry.Name)
	}
	resolved, err := settingsStruct(settings)
	if err != nil {
		return nil, fmt.Errorf("session settings: %w", err)
	}
	return &built{ctl: ctl, method: entry.Name, settings: resolved, interval: opts.Interval, space: space}, nil
}

// buildSpace checks the space as the CLI checks [[controller.tune]].
func buildSpace(ps []*hyperctlv1.Param) (controller.Space, error) {
	if len(ps) == 0 {
		return controller.Space{}, fieldErr("space", "no parameters; want at least one {name, low, high}")
	}
	if len(ps) > maxParams {
		return controller.Space{}, fieldErr("space", "%d parameters, at most %d", len(ps), maxParams)
	}
	params := make([]controller.Param, len(ps))
	for i, p := range ps {
		key := fmt.Sprintf("space[%d]", i)
		if len(p.GetName()) > maxNameLen {
			return controller.Space{}, fieldErr(key+".name", "longer than %d bytes", maxNameLen)
		}
		sc, err := controller.ParseScale(p.GetScale())
		if err != nil {
			return controller.Space{}, fieldErr(key+".scale", "want \"linear\" or \"log\", got %q", p.GetScale())
		}
		params[i] = controller.Param{Name: p.GetName(), Low: p.GetLow(), High: p.GetHigh(), Scale: sc, Integer: p.GetInteger()}
		if _, err := controller.NewSpace(params[i]); err != nil {
			return controller.Space{}, fieldErr(key, "%s", strings.TrimPrefix(err.Error(), "space: parameter 0: "))
		}
	}
	space, err := controller.NewSpace(params...)
	if err != nil {
		return controller.Space{}, fieldErr("space", "%s", strings.TrimPrefix(err.Error(), "space: "))
	}
	return space, nil
}

// settingsTable turns the request's settings object into a TOML table.
// JSON has one number type: integral values become TOML integers (which
// the decoder also accepts for float settings), others stay floats.
func settingsTable(s *structpb.Struct) (map[string]any, error) {
	if s == nil {
		return nil, nil
	}
	if len(s.GetFields()) > maxSettings {
		return nil, fieldErr("settings", "%d keys, at most %d", len(s.GetFields()), maxSettings)
	}
	out := make(map[string]any, len(s.GetFields()))
	for k, v := range s.GetFields() {
		x, err := tomlValue("settings."+k, v)
		if err != nil {
			return nil, err
		}
		out[k] = x
	}
	return out, nil
}

func tomlValue(field string, v *structpb.Value) (any, error) {
	switch k := v.GetKind().(type) {
	case *structpb.Value_NumberValue:
		f := k.NumberValue
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fieldErr(field, "%v is not a finite number", f)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), nil
		}
		return f, nil
	case *structpb.Value_StringValue:
		return k.StringValue, nil
	case *structpb.Value_BoolValue:
		return k.BoolValue, nil
	case *structpb.Value_ListValue:
		out := make([]any, len(k.ListValue.GetValues()))
		for i, e := range k.ListValue.GetValues() {
			x, err := tomlValue(fmt.Sprintf("%s[%d]", field, i), e)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case *structpb.Value_StructValue:
		out := make(map[string]any, len(k.StructValue.GetFields()))
		for n, e := range k.StructValue.GetFields() {
			x, err := tomlValue(field+"."+n, e)
			if err != nil {
				return nil, err
			}
			out[n] = x
		}
		return out, nil
	}
	return nil, fieldErr(field, "null is not a value; leave the key out to use the default")
}

// settingsStruct returns a method's settings as a JSON-like object, through
// their TOML encoding (the keys a config file would use).
func settingsStruct(s controller.Settings) (*structpb.Struct, error) {
	var sb strings.Builder
	if err := toml.NewEncoder(&sb).Encode(s); err != nil {
		return nil, err
	}
	var m map[string]any
	if _, err := toml.Decode(sb.String(), &m); err != nil {
		return nil, err
	}
	return structpb.NewStruct(m)
}

// rekey turns a settings or setup error into a FieldError naming the
// request's field, keeping the CLI's message.
func rekey(err error, entry controller.Entry) error {
	field, msg := "settings", err.Error()
	var se *controller.SettingError
	if errors.As(err, &se) {
		msg = se.Msg
		if se.Key != "" {
			field = "settings." + se.Key
		}
	} else if k, m, ok := strings.Cut(msg, ": "); ok {
		field, msg = fieldName(k), m
		if field == "interval" && k != "controller.interval" {
			msg = err.Error() // controller.interval = "auto": why
		}
	}
	// A settings Validate error names the setting first ("d: want ..."):
	// fold it into the field.
	if field == "settings" {
		if k, m, ok := strings.Cut(msg, ": "); ok {
			if defaults, err := settingsStruct(entry.Defaults()); err == nil {
				if _, known := defaults.GetFields()[k]; known {
					field, msg = "settings."+k, m
				}
			}
		}
	}
	return &FieldError{Field: field, Msg: msg}
}

// fieldName maps a setup error's config key to the request field it came
// from.
func fieldName(key string) string {
	switch {
	case strings.HasPrefix(key, "controller.interval"):
		return "interval"
	case key == "seed", key == "iterations":
		return key
	}
	return "settings"
}
