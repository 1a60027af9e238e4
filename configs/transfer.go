package configs

import (
	"fmt"

	"github.com/hyperctl/hyperctl/controller"
)

// transferSetter is implemented by the settings of controllers that
// transfer from earlier runs (deltabo).
type transferSetter interface {
	SetTransferFrom(dir string, objective controller.Objective)
}

// SupportsTransfer reports whether the registered controller name takes a
// transfer_from folder (`--transfer-from`).
func SupportsTransfer(name string) bool {
	e, err := controller.Lookup(name)
	if err != nil {
		return false
	}
	_, ok := e.Defaults().(transferSetter)
	return ok
}

// SetTransferFrom sets the source folder of r's controller, which must
// support it (SupportsTransfer), to the absolute folder abs, and the
// objective its source runs must have logged: r's.
func SetTransferFrom(r *Run, abs string) error {
	name := r.Controller.Name
	s, err := r.Controller.MethodSettings(name)
	if err != nil {
		return err
	}
	ts, ok := s.(transferSetter)
	if !ok {
		return fmt.Errorf("transfer_from: controller %s does not transfer from earlier runs", name)
	}
	ts.SetTransferFrom(abs, r.Controller.Objective)
	if r.Controller.Settings == nil {
		r.Controller.Settings = map[string]controller.Settings{}
	}
	r.Controller.Settings[name] = s
	return nil
}
