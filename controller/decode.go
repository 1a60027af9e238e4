package controller

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/internal/ground/suggest"
)

// SettingError is a problem with a method's settings table: Key is the
// dotted key within the table, empty for the settings as a whole (a
// Validate error, which names the setting itself).
type SettingError struct {
	Key string
	Msg string
}

func (e *SettingError) Error() string {
	if e.Key == "" {
		return e.Msg
	}
	return e.Key + ": " + e.Msg
}

// DecodeSettings decodes a method's settings table over the method's
// registered defaults, strictly, and validates the result. The table holds
// TOML's value types (int64, float64, string, bool, []any, map[string]any),
// and a value goes into a field by the rules, and with the messages, of
// BurntSushi/toml's decoder, which decodes a config file's
// [controller.<method>] table: an integer fits a float field, a float never
// an integer one, keys match a field's tag (or, failing that, its name)
// case-insensitively, and an untagged embedded struct's keys are the
// table's own. A value of the wrong type stops the decoding with that
// error; otherwise every unknown key is reported (UnknownSettingMsg), and
// then the settings' Validate error. Each problem is a *SettingError; several
// are joined with errors.Join, in key order.
func DecodeSettings(method string, table map[string]any) (Settings, error) {
	e, err := Lookup(method)
	if err != nil {
		return nil, err
	}
	s := e.Defaults()
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("controller %s: its settings are a %T; a registered method's Defaults must return a pointer to a struct", e.Name, s)
	}
	var unknown []error
	if err := decodeTable(v.Elem(), table, "", s, &unknown); err != nil {
		return nil, err
	}
	if len(unknown) > 0 {
		return nil, errors.Join(unknown...)
	}
	if err := s.Validate(); err != nil {
		return nil, &SettingError{Msg: err.Error()}
	}
	return s, nil
}

// UnknownSettingMsg is the message for key, a key the settings s do not
// have, written under prefix (the settings' table as the user writes it:
// "controller.hoof." in a config file, "" in a service request): the
// nearest setting (suggest.UnknownKey, the rule of every unknown key), or
// else the list.
func UnknownSettingMsg(s Settings, key, prefix string) string {
	return suggest.UnknownKey(key, TOMLKeys(s), prefix)
}

// TOMLKeys lists the TOML keys of a struct (or pointer to struct), in field
// order, for error messages. The keys of an untagged embedded struct are
// the outer table's own, as BurntSushi/toml decodes them; untagged fields
// and fields tagged "-" are not listed.
func TOMLKeys(v any) []string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag == "" && f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, TOMLKeys(reflect.New(f.Type).Interface())...)
			continue
		}
		if tag == "" || tag == "-" {
			continue
		}
		out = append(out, tag)
	}
	return out
}

// tomlUnmarshaler is BurntSushi/toml's Unmarshaler.
type tomlUnmarshaler interface {
	UnmarshalTOML(any) error
}

// decodeTable decodes table into the struct rv; prefix is the dotted key of
// the table within the settings, root the settings (for unknown keys).
func decodeTable(rv reflect.Value, table map[string]any, prefix string, root Settings, unknown *[]error) error {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fields := structFields(rv.Type())
	for _, k := range keys {
		key := prefix + k
		f, ok := matchField(fields, k)
		if !ok {
			reportUnknown(key, table[k], root, unknown)
			continue
		}
		if err := decodeValue(fieldByIndex(rv, f.index), table[k], key, root, unknown); err != nil {
			return err
		}
	}
	return nil
}

// reportUnknown reports key and, when it holds a table, every key under it.
func reportUnknown(key string, v any, root Settings, unknown *[]error) {
	*unknown = append(*unknown, &SettingError{Key: key, Msg: UnknownSettingMsg(root, key, "")})
	if m, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			reportUnknown(key+"."+k, m[k], root, unknown)
		}
	}
}

// decodeValue decodes one TOML value into rv.
func decodeValue(rv reflect.Value, v any, key string, root Settings, unknown *[]error) error {
	if rv.CanAddr() {
		switch u := rv.Addr().Interface().(type) {
		case tomlUnmarshaler:
			if err := u.UnmarshalTOML(v); err != nil {
				return &SettingError{Key: key, Msg: err.Error()}
			}
			return nil
		case encoding.TextUnmarshaler:
			var text string
			switch x := v.(type) {
			case string:
				text = x
			case bool:
				text = fmt.Sprintf("%v", x)
			case int64:
				text = fmt.Sprintf("%d", x)
			case float64:
				text = fmt.Sprintf("%f", x)
			default:
				return badType(key, v, "primitive (string-like)")
			}
			if err := u.UnmarshalText([]byte(text)); err != nil {
				return &SettingError{Key: key, Msg: err.Error()}
			}
			return nil
		}
	}
	switch k := rv.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		n, ok := v.(int64)
		if !ok {
			return badType(key, v, "integer")
		}
		if rv.OverflowInt(n) {
			return &SettingError{Key: key, Msg: fmt.Sprintf("%v is out of range for %s", n, k)}
		}
		rv.SetInt(n)
	case k >= reflect.Uint && k <= reflect.Uint64:
		n, ok := v.(int64)
		if !ok {
			return badType(key, v, "integer")
		}
		if n < 0 || rv.OverflowUint(uint64(n)) {
			return &SettingError{Key: key, Msg: fmt.Sprintf("%v is out of range for %s", n, k)}
		}
		rv.SetUint(uint64(n))
	case k == reflect.Float32 || k == reflect.Float64:
		switch x := v.(type) {
		case float64:
			if k == reflect.Float32 && (x < -math.MaxFloat32 || x > math.MaxFloat32) {
				return &SettingError{Key: key, Msg: fmt.Sprintf("%v is out of range for %s", x, k)}
			}
			rv.SetFloat(x)
		case int64:
			safe := int64(1 << 53)
			if k == reflect.Float32 {
				safe = 1 << 24
			}
			if x < -safe || x > safe {
				return &SettingError{Key: key, Msg: fmt.Sprintf("%v is out of the safe %s range", x, k)}
			}
			rv.SetFloat(float64(x))
		default:
			return badType(key, v, "float")
		}
	case k == reflect.String:
		s, ok := v.(string)
		if !ok {
			return badType(key, v, "string")
		}
		rv.SetString(s)
	case k == reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return badType(key, v, "boolean")
		}
		rv.SetBool(b)
	case k == reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return &SettingError{Key: key, Msg: fmt.Sprintf("type mismatch for %s: expected table but found %s", rv.Type(), fmtType(v))}
		}
		return decodeTable(rv, m, key+".", root, unknown)
	case k == reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return badType(key, v, "slice")
		}
		out := reflect.MakeSlice(rv.Type(), len(l), len(l))
		for i, e := range l {
			if err := decodeValue(out.Index(i), e, key, root, unknown); err != nil {
				return err
			}
		}
		rv.Set(out)
	default:
		return &SettingError{Key: key, Msg: fmt.Sprintf("unsupported type %s", k)}
	}
	return nil
}

func badType(key string, v any, dst string) error {
	return &SettingError{Key: key, Msg: TypeMismatchMsg(WrittenTOML(v), fmtType(v), dst)}
}

// TypeMismatchMsg is the message for a value of the wrong type, in a config
// file, a --set assignment or a service request alike: what the key wants
// and the value as written (written; "" when unknown) with its type. got
// and want are BurntSushi/toml's names: the Go type of the decoded value
// (string, int64, float64, ...) and the kind of the field (float,
// integer, ...), as its "incompatible types" error gives them.
func TypeMismatchMsg(written, got, want string) string {
	w, ok := tomlTypeWords[want]
	if !ok {
		w = "a " + want
	}
	g, ok := tomlTypeWords[got]
	if !ok {
		g = "a " + got
	}
	if written == "" {
		return fmt.Sprintf("want %s, got %s", w, g)
	}
	return fmt.Sprintf("want %s, got %s (%s)", w, written, g)
}

// tomlTypeWords words BurntSushi's type names: the Go type of a decoded
// TOML value, and the kind of the field it was decoded into.
var tomlTypeWords = map[string]string{
	"string": "a string", "int64": "an integer", "float64": "a number", "bool": "true or false",
	"[]any": "an array", "map[string]any": "a table", "[]map[string]any": "an array of tables",
	"integer": "an integer", "float": "a number", "boolean": "true or false", "slice": "an array",
	"map": "a table", "primitive (string-like)": "a string",
}

// WrittenTOML writes a decoded TOML value of one line as TOML writes it (a
// string quoted), for TypeMismatchMsg; "" for a table or an array.
func WrittenTOML(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int64, float64, bool:
		return fmt.Sprint(x)
	}
	return ""
}

// fmtType names a TOML value's Go type as BurntSushi/toml's messages do.
func fmtType(v any) string {
	return strings.ReplaceAll(fmt.Sprintf("%T", v), "interface {}", "any")
}

// tomlField is one decodable field: its key and its index path.
type tomlField struct {
	name   string
	tagged bool
	index  []int
}

// structFields lists t's decodable fields, with untagged embedded structs'
// fields promoted, as BurntSushi/toml does.
func structFields(t reflect.Type) []tomlField {
	var out []tomlField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.PkgPath != "" && !sf.Anonymous {
			continue // unexported
		}
		tag, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if tag == "-" {
			continue
		}
		ft := sf.Type
		if ft.Name() == "" && ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if tag == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
			for _, f := range structFields(ft) {
				out = append(out, tomlField{name: f.name, tagged: f.tagged, index: append([]int{i}, f.index...)})
			}
			continue
		}
		if sf.PkgPath != "" {
			continue
		}
		name := tag
		if name == "" {
			name = sf.Name
		}
		out = append(out, tomlField{name: name, tagged: tag != "", index: []int{i}})
	}
	return out
}

// matchField finds key's field: an exact name, else the first whose name
// matches ignoring case.
func matchField(fields []tomlField, key string) (tomlField, bool) {
	var fold *tomlField
	for i := range fields {
		if fields[i].name == key {
			return fields[i], true
		}
		if fold == nil && strings.EqualFold(fields[i].name, key) {
			fold = &fields[i]
		}
	}
	if fold != nil {
		return *fold, true
	}
	return tomlField{}, false
}

// fieldByIndex follows an index path, allocating nil embedded pointers.
func fieldByIndex(rv reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		if rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				rv.Set(reflect.New(rv.Type().Elem()))
			}
			rv = rv.Elem()
		}
		rv = rv.Field(i)
	}
	if rv.Kind() == reflect.Pointer && rv.Type().Name() == "" {
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		rv = rv.Elem()
	}
	return rv
}
