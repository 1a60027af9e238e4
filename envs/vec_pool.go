package envs

import (
	"sync/atomic"
	"time"
)

// The worker pool of a Vec: the persistent goroutines that step the
// copies, the claim words that hand out the copies of each run, and the
// parking that lets workers and the caller block without lost wake-ups (see
// Vec's "Parallelism").

// claimWord is an atomic word on its own cache line, so that claims on
// different chunks do not contend.
type claimWord struct {
	atomic.Uint64
	_ [56]byte
}

// parker lets one goroutine block until another wakes it, without lost
// wake-ups: the sleeper sets asleep, re-checks its condition and blocks on
// wake; the waker, after making the condition true, hands a token to a
// sleeper it finds (see sleep and wakeUp).
type parker struct {
	asleep atomic.Bool
	wake   chan struct{} // capacity 1
	_      [48]byte
}

// sleep blocks until done() holds. The caller must make done() true before
// calling wakeUp, so that either the sleeper sees it or the waker sees
// asleep (sync/atomic operations are sequentially consistent).
//
// A wake-up can come late: the goroutine that made the caller's left reach
// 0 in one run may call wakeUp after the caller has seen left == 0 by
// spinning and gone on to wait in the next run. So sleep re-checks done
// after every wake-up and goes back to sleep if it does not hold yet.
func (p *parker) sleep(done func() bool) {
	for !done() {
		p.asleep.Store(true)
		if done() && p.asleep.CompareAndSwap(true, false) {
			return
		}
		<-p.wake // a waker took asleep and sends (or has sent) one token
	}
}

// wakeUp wakes the goroutine sleeping on p, if any.
func (p *parker) wakeUp() {
	if p.asleep.Load() && p.asleep.CompareAndSwap(true, false) {
		p.wake <- struct{}{}
	}
}

type vecOp uint8

const (
	opReset vecOp = iota
	opStep
	opSave // SaveState of every copy into states
	opLoad // LoadState of every copy from states
	opQuit // stop the workers (Close)
)

// run performs op on every copy and returns the copies' errors joined (nil
// if none).
//
// With one worker the caller performs op on the copies in order. Otherwise
// the caller publishes the run: it arms every chunk's claim word with the
// new epoch and the chunk's first copy, sets left to n, stores epoch<<8|op
// in sig (which spinning workers poll) and wakes the workers that are
// blocked. Then every worker, the caller included, claims and performs the
// copies of its own chunk and then those left in the other chunks (work),
// and the caller waits until left is 0. A claim names the epoch, so a
// worker that wakes after the run is over claims nothing.
func (v *Vec) run(op vecOp) error {
	if v.Workers() == 1 {
		for i := 0; i < v.n; i++ {
			v.errs[i] = v.one(op, i)
		}
		return v.joinErrs()
	}
	v.epoch++
	e := v.epoch
	for w := range v.claims {
		v.claims[w].Store(uint64(uint32(e))<<32 | uint64(v.bounds[w]))
	}
	v.left.Store(int64(v.n))
	v.sig.Store(e<<8 | uint64(op))
	for w := 1; w < len(v.park); w++ {
		v.park[w].wakeUp()
	}
	v.work(0, e, op)
	allDone := func() bool { return v.left.Load() == 0 }
	if !spinUntil(v.spin, allDone) {
		v.park[0].sleep(allDone)
	}
	return v.joinErrs()
}

// spinUntil polls cond for up to d and reports whether it became true.
// Between polls it yields the core to any other runnable thread (osYield):
// on an idle core that returns at once, and when other processes leave the
// Vec fewer cores than workers, the spinning goroutine does not take CPU
// time from the ones stepping copies.
func spinUntil(d time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	if d <= 0 {
		return false
	}
	start := time.Now()
	for {
		osYield()
		if cond() {
			return true
		}
		if time.Since(start) > d {
			return cond()
		}
	}
}

// worker w performs each published run's share (see run) until Close.
func (v *Vec) worker(w int) {
	defer v.wg.Done()
	var seen uint64
	for {
		published := func() bool { return v.sig.Load() != seen }
		if !spinUntil(v.spin, published) {
			v.park[w].sleep(published)
		}
		seen = v.sig.Load()
		op := vecOp(seen & 0xff)
		if op == opQuit {
			return
		}
		v.work(w, seen>>8, op)
	}
}

// work claims and performs the copies of run epoch e: chunk w's first, then
// what is left of the following chunks, round robin. The goroutine whose
// copy brings left to 0 wakes the caller if it is blocked.
func (v *Vec) work(w int, e uint64, op vecOp) {
	k := len(v.claims)
	for j := 0; j < k; j++ {
		c := (w + j) % k
		for {
			i, ok := v.claim(c, e)
			if !ok {
				break
			}
			v.errs[i] = v.one(op, i)
			if v.left.Add(-1) == 0 && w != 0 {
				v.park[0].wakeUp()
			}
		}
	}
}

// claim takes the next unclaimed copy of chunk c in run epoch e, if any.
func (v *Vec) claim(c int, e uint64) (int, bool) {
	hi := v.bounds[c+1]
	for {
		old := v.claims[c].Load()
		i := int(uint32(old))
		if uint32(old>>32) != uint32(e) || i >= hi {
			return 0, false
		}
		if v.claims[c].CompareAndSwap(old, old+1) {
			return i, true
		}
	}
}
