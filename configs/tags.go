package configs

import (
	"reflect"
	"strings"
)

// tomlTags lists the TOML keys of a struct (or pointer to struct), in field
// order, for error messages. The keys of an untagged embedded struct are
// the outer table's own, as BurntSushi/toml decodes them.
func tomlTags(v any) []string {
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
			out = append(out, tomlTags(reflect.New(f.Type).Interface())...)
			continue
		}
		if tag == "" || tag == "-" {
			continue
		}
		out = append(out, tag)
	}
	return out
}
