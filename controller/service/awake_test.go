package service

import (
	"runtime"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// waitFor polls cond, yielding, for a bounded number of iterations.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 10_000_000; i++ {
		if cond() {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("the spinner never %s", what)
}

// TestAwaker checks the spinner's states: it spins while one request is in
// flight, stops when a second one starts, starts again when a request
// follows none, lingers after the last one ends and then blocks; Close
// stops it. A nil awaker (off) is a no-op.
func TestAwaker(t *testing.T) {
	var off *awaker
	off.begin()
	off.end()
	off.close()
	if a, err := newAwaker(0); a != nil || err != nil {
		t.Fatalf("newAwaker(0) = %v, %v; want off without error", a, err)
	}

	a, err := newAwaker(time.Millisecond)
	if err != nil {
		t.Skipf("the spinner cannot run here: %v", err)
	}
	defer a.close()
	// The spells' time cap out of the way, each state below lasts until
	// the test changes it (the spinner, at SCHED_IDLE, may wait for CPU).
	a.maxSpin = int64(time.Hour)
	a.begin()
	waitFor(t, "started while one request was in flight", a.spinning.Load)
	a.begin()
	waitFor(t, "stopped while two requests were in flight", func() bool { return !a.spinning.Load() })
	a.end()
	a.end()
	a.begin() // from none to one in flight: wakes it again
	waitFor(t, "restarted when a request came after none", a.spinning.Load)
	a.end()
	waitFor(t, "stopped after its linger with no request", func() bool { return !a.spinning.Load() })
	if n := a.inflight.Load(); n != 0 {
		t.Fatalf("in flight: %d, want 0", n)
	}
}

// TestKeepAwakeOption checks which servers run the spinner: the default
// does (where it can run), a negative KeepAwake and UnsafeNoSync do not.
func TestKeepAwakeOption(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want bool
	}{
		{"default", Options{}, true},
		{"negative", Options{KeepAwake: -1}, false},
		{"UnsafeNoSync", Options{UnsafeNoSync: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := newAwaker(DefaultKeepAwake); tc.want && err != nil {
				t.Skipf("the spinner cannot run here: %v", err)
			}
			tc.opts.StateDir, tc.opts.Log = t.TempDir(), zerolog.Nop()
			s, err := New(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.awake != nil; got != tc.want {
				t.Fatalf("spinner running: %v, want %v", got, tc.want)
			}
		})
	}
}
