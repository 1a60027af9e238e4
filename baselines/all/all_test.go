package all_test

import (
	"slices"
	"testing"

	_ "github.com/hyperctl/hyperctl/baselines/all"
	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// Importing the package registers the ten controllers, and only those.
func TestRegistersEveryController(t *testing.T) {
	want := []string{"bilevel", "deltabo", "goucb", "gpucb", "hyperband", "hypercontroller", "neuralbo", "pb2", "random", "randomstart"}
	for _, name := range want {
		methodtest.Registered(t, name)
	}
	if got := controller.Names(); !slices.Equal(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
}
