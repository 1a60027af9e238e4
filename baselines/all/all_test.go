package all_test

import (
	"slices"
	"testing"

	_ "github.com/hyperctl/hyperctl/baselines/all"
	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// Importing the package registers the twelve controllers, and only those.
func TestRegistersEveryController(t *testing.T) {
	want := []string{"bilevel", "deltabo", "goucb", "gpucb", "hoof", "hyperband", "hypercontroller", "kladaptive", "neuralbo", "pb2", "random", "randomstart"}
	for _, name := range want {
		methodtest.Registered(t, name)
	}
	if got := controller.Names(); !slices.Equal(got, want) {
		t.Errorf("registered %v, want %v", got, want)
	}
}

// The driver-level contract of every method (methodtest.Contract), for the
// methods whose checks run with their default settings; goucb, neuralbo
// and deltabo run theirs with settings, in their own packages.
func TestContract(t *testing.T) {
	for _, c := range []struct {
		name       string
		otherSpace bool // the state of another space is refused (Random has no state to check)
	}{{"gpucb", true}, {"pb2", true}, {"bilevel", true}, {"hyperband", true}, {"random", false}, {"randomstart", true}} {
		t.Run(c.name, func(t *testing.T) { methodtest.Contract(t, c.name, c.otherSpace) })
	}
}

// Every method's state round-trips at the edges of float64 that the driver
// and the service accept (methodtest.ExtremesRoundTrip); deltabo, whose
// source depends on the space, runs it in its own package.
func TestExtremes(t *testing.T) {
	for _, name := range []string{"hypercontroller", "gpucb", "pb2", "bilevel", "hyperband", "random", "randomstart", "goucb", "neuralbo"} {
		t.Run(name, func(t *testing.T) { methodtest.ExtremesRoundTrip(t, methodtest.Extremes{Name: name}) })
	}
}
