//go:build race

package envs_test

// raceEnabled reports whether the race detector is on (it allocates).
const raceEnabled = true
