package configs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// WithSet is an Override that makes Load, Default or Parse apply
// command-line assignments KEY=VALUE to the config text before it is
// decoded (`hyperctl train --set ppo.lr=1e-4 --set
// controller.hypercontroller.d=5`), as Hydra's overrides and CleanRL's
// flags do. KEY is a dotted TOML key, with [i] for an element of an array
// of tables (controller.tune[1].high); VALUE is a TOML value (1e-4, true,
// "relu", [64, 64]), or else a bare string. The result is decoded, checked
// and reported exactly as a file with those keys would be, under the name
// "FILE + configs.WithSet" ("FILE + --set" on hyperctl's command line:
// Error is words.Worded), and config.toml records it.
func WithSet(assignments ...string) Override {
	return func(r *Run) { r.sets = append(r.sets, assignments...) }
}

// setSuffix marks the source of a config with WithSet assignments in
// errors; {set} is words.Words' placeholder (Error.In).
const setSuffix = " + {set}"

var setKey = regexp.MustCompile(`^[A-Za-z0-9_-]+(\[[0-9]+\])?$`)

// applySets returns text with the assignments applied, through a decode of
// the text into TOML's own values and an encode back. A bad assignment is
// an *Error without its File; any other error is the text's own.
func applySets(text string, sets []string) (string, error) {
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		return "", err // the file's own error, reported by the decode that follows
	}
	if doc == nil {
		doc = map[string]any{}
	}
	for _, a := range sets {
		key, raw, ok := strings.Cut(a, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return "", &Error{Msg: fmt.Sprintf("{set} %q: want KEY=VALUE, e.g. ppo.lr=1e-4", a)}
		}
		v, err := setValue(strings.TrimSpace(raw))
		if err != nil {
			return "", &Error{Msg: fmt.Sprintf("{set} %s: %v", key, err)}
		}
		if err := assign(doc, strings.Split(key, "."), v); err != nil {
			return "", &Error{Msg: fmt.Sprintf("{set} %s: %v", key, err)}
		}
	}
	var sb strings.Builder
	if err := toml.NewEncoder(&sb).Encode(doc); err != nil {
		return "", &Error{Msg: fmt.Sprintf("{set}: %v", err)}
	}
	return sb.String(), nil
}

// setValue reads VALUE as a TOML value, or as a bare string when it is not
// one (relu, halfcheetah).
func setValue(raw string) (any, error) {
	var v struct{ V any }
	if _, err := toml.Decode("V = "+raw, &v); err == nil {
		return v.V, nil
	}
	if raw == "" || strings.ContainsAny(raw, "\"'\n") {
		return nil, fmt.Errorf("value %q is neither a TOML value nor a bare word", raw)
	}
	return raw, nil
}

// assign sets path (dotted parts, each optionally indexed) in doc to v,
// creating tables on the way.
func assign(doc map[string]any, path []string, v any) error {
	t := doc
	for i, part := range path {
		if !setKey.MatchString(part) {
			return fmt.Errorf("key part %q: want a name, or name[index] for an array of tables", part)
		}
		name, idx := part, -1
		if j := strings.IndexByte(part, '['); j >= 0 {
			name = part[:j]
			idx, _ = strconv.Atoi(part[j+1 : len(part)-1])
		}
		last := i == len(path)-1
		if idx < 0 {
			if last {
				t[name] = v
				return nil
			}
			next, ok := t[name].(map[string]any)
			if !ok {
				if _, exists := t[name]; exists {
					return fmt.Errorf("%s is a value, not a table", strings.Join(path[:i+1], "."))
				}
				next = map[string]any{}
				t[name] = next
			}
			t = next
			continue
		}
		arr, ok := t[name].([]map[string]any)
		if !ok || idx >= len(arr) {
			return fmt.Errorf("%s has no element %d (it has %d)", strings.Join(append(path[:i:i], name), "."), idx, len(arr))
		}
		if last {
			return fmt.Errorf("an element of %s is a table; set one of its keys, e.g. %s.low", name, part)
		}
		t = arr[idx]
	}
	return nil
}
