package controller_test

import (
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// Space errors name the parameter and the field; an empty space is refused.
func TestNewSpaceErrors(t *testing.T) {
	for _, c := range []struct {
		p    controller.Param
		want string
	}{
		{controller.Param{Name: "clip", Low: 0.5, High: 0.1}, "low"},
		{controller.Param{Name: "lr", Low: 0, High: 1e-3, Scale: controller.Log}, "low"},
		{controller.Param{Name: "", Low: 0, High: 1}, "name"},
	} {
		if _, err := controller.NewSpace(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("space %+v: error %v", c.p, err)
		}
	}
	if _, err := controller.NewSpace(); err == nil {
		t.Error("empty space accepted")
	}
}
