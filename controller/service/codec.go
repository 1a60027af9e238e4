package service

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// strictJSON is Connect's JSON codec with two changes for a service whose
// clients are often hand-written: an unknown field is an error listing the
// allowed ones (Connect's default codec drops it silently, so a misspelt
// "rewrad" would observe a reward of 0), and replies include fields at their
// zero value, so that a client never has to guess a default.
type strictJSON struct{ name string }

func (c strictJSON) Name() string { return c.name }

func (c strictJSON) Marshal(m any) ([]byte, error) {
	pm, ok := m.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("json codec: %T is not a protobuf message", m)
	}
	return protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(pm)
}

func (c strictJSON) Unmarshal(b []byte, m any) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return fmt.Errorf("json codec: %T is not a protobuf message", m)
	}
	if len(b) == 0 {
		return errors.New("empty body: want a JSON object")
	}
	if err := (protojson.UnmarshalOptions{}).Unmarshal(b, pm); err != nil {
		msg := strings.TrimPrefix(err.Error(), "proto: ")
		if strings.Contains(msg, "unknown field") {
			msg += "; allowed: " + allowedFields(pm.ProtoReflect().Descriptor())
		}
		return errors.New(msg)
	}
	return nil
}

// allowedFields lists a message's JSON field names and, for fields that are
// messages of this API, theirs in parentheses.
func allowedFields(d protoreflect.MessageDescriptor) string {
	var parts []string
	fs := d.Fields()
	for i := 0; i < fs.Len(); i++ {
		f := fs.Get(i)
		name := f.JSONName()
		if md := f.Message(); md != nil && !f.IsMap() && md.ParentFile().Package() == d.ParentFile().Package() {
			name += " (" + allowedFields(md) + ")"
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, ", ")
}
