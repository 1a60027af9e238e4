package service

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// DefaultKeepAwake is Options.KeepAwake's default.
const DefaultKeepAwake = 100 * time.Microsecond

// maxSpin bounds one spell of the awaker's spinning; a new flush starts
// another.
const maxSpin = 2 * time.Millisecond

// awaker keeps one CPU from going idle while the server handles a request
// and for a short window (linger) after the last one ended, as long as
// there is at most one request at a time. On a virtual machine whose idle
// CPUs halt (this project's: haltpoll with guest_halt_poll_ns=0), waking a
// halted CPU costs tens of microseconds, and a durable round, whose flush
// leaves both CPUs idle for about 100 µs, pays it several times: the
// flush's completion, the reply, the next request. results/serve/README.md
// (run 8) measured the one-request round at p50 158 µs with it against
// 194.5 µs without (medians of ten runs).
//
// The spinner is one goroutine locked to its own OS thread, which runs at
// the SCHED_IDLE policy: the kernel runs it only when nothing else wants the
// CPU and preempts it at once when anything does, so it uses CPU time that
// would otherwise idle and delays no other thread. It spins only while at
// most one request is in flight (concurrent requests keep the CPUs busy
// anyway, and the spinner would hold one of Go's Ps from them) and never
// longer than maxSpin per spell; between spells it blocks. It is off when
// GOMAXPROCS is 1, and when the thread cannot be given SCHED_IDLE (other
// systems, or a sandbox that forbids it), rather than spin at normal
// priority.
type awaker struct {
	linger   int64 // ns
	maxSpin  int64 // ns; maxSpin, longer in tests
	base     time.Time
	inflight atomic.Int32
	lastDone atomic.Int64 // ns since base when the last request ended
	spinning atomic.Bool  // for tests
	wake     chan struct{}
	stop     chan struct{}
	stopped  chan struct{}
}

// newAwaker starts the spinner; it returns nil (no spinning) with the
// reason when it cannot run as described above, and nil, nil when linger is
// not positive.
func newAwaker(linger time.Duration) (*awaker, error) {
	if linger <= 0 {
		return nil, nil
	}
	if runtime.GOMAXPROCS(0) < 2 {
		return nil, fmt.Errorf("keep-awake off: GOMAXPROCS is %d", runtime.GOMAXPROCS(0))
	}
	a := &awaker{
		linger: int64(linger), maxSpin: int64(maxSpin), base: time.Now(),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{}),
	}
	started := make(chan error, 1)
	go a.run(started)
	if err := <-started; err != nil {
		return nil, fmt.Errorf("keep-awake off: %w", err)
	}
	return a, nil
}

func (a *awaker) now() int64 { return int64(time.Since(a.base)) }

func (a *awaker) run(started chan<- error) {
	defer close(a.stopped)
	// The goroutine exits still locked, so its thread, with its changed
	// policy, ends with it instead of returning to Go's pool.
	runtime.LockOSThread()
	if err := setIdlePriority(); err != nil {
		started <- err
		return
	}
	started <- nil
	for {
		select {
		case <-a.stop:
			return
		case <-a.wake:
		}
		a.spinning.Store(true)
		start := a.now()
		for {
			n, t := a.inflight.Load(), a.now()
			if n > 1 || t-start > a.maxSpin || (n == 0 && t-a.lastDone.Load() > a.linger) {
				break
			}
		}
		a.spinning.Store(false)
	}
}

// begin is called when a request starts, end when it is answered. Both are
// no-ops on nil.
func (a *awaker) begin() {
	if a != nil && a.inflight.Add(1) == 1 {
		select {
		case a.wake <- struct{}{}:
		default: // already woken
		}
	}
}

func (a *awaker) end() {
	if a != nil {
		a.lastDone.Store(a.now())
		a.inflight.Add(-1)
	}
}

// close stops the spinner and waits for it.
func (a *awaker) close() {
	if a != nil {
		close(a.stop)
		<-a.stopped
	}
}
