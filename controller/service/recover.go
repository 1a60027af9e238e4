package service

// Recovery and persistence: loading a --state folder, rebuilding a session
// from its snapshot and log, the background snapshot writer, and reloading a
// session from disk after a failed write or a panic.

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/service/internal/statepb"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// load reads every session of the state folder. A session that cannot be
// restored is quarantined (see quarantine); only a state folder that cannot
// be read at all stops the server.
func (s *Server) load() error {
	if _, err := os.Stat(s.root); errors.Is(err, fs.ErrNotExist) {
		if s.readOnly {
			return nil // nothing to check
		}
		if err := os.Mkdir(s.root, dirMode); err != nil {
			return fmt.Errorf("state folder: %w", err)
		}
		if !s.opts.UnsafeNoSync {
			if err := safefile.SyncDir(s.opts.StateDir); err != nil {
				return err
			}
		}
	}
	if !s.readOnly {
		if err := cleanLeftovers(s.root, s.opts.Log); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(s.root)
	if err != nil {
		return fmt.Errorf("state folder: %w", err)
	}
	quarantined := 0
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), newPrefix) || strings.HasPrefix(e.Name(), delPrefix) {
			continue
		}
		ss := s.loadSession(e.Name())
		if ss.failure != nil {
			quarantined++
		}
		s.sessions[ss.id] = ss
	}
	if len(s.sessions) > 0 {
		s.opts.Log.Info().Int("sessions", len(s.sessions)-quarantined).Int("quarantined", quarantined).Str("state", s.opts.StateDir).Msg("sessions restored")
	}
	return nil
}

// loadSession rebuilds one session from its folder: definition, snapshot,
// then a replay of the records after the snapshot. A session that cannot be
// rebuilt comes back quarantined.
func (s *Server) loadSession(id string) *session {
	ss, created, err := s.restore(id)
	if err != nil {
		return s.quarantine(id, filepath.Join(s.root, id), created, err)
	}
	return ss
}

// restore reads a session's files and rebuilds it; only then does it
// repair them (a torn last record is cut), so that no file of a session
// that cannot be restored changes. It returns the session's creation
// record, when it could be read, with an error.
func (s *Server) restore(id string) (*session, *statepb.Created, error) {
	l, err := loadSessionFiles(filepath.Join(s.root, id), s.opts.logChunk, s.opts.UnsafeNoSync, s.readOnly)
	if err != nil {
		return nil, nil, err
	}
	ss, err := s.rebuildSafely(id, l)
	if err == nil {
		err = l.repair(s.readOnly, s.opts.Log)
	}
	if err != nil {
		l.files.close()
		return nil, l.created, err
	}
	return ss, l.created, nil
}

// rebuildSafely is rebuild with a panic of a method's Restore or replay
// turned into the session's error: a state file that makes a method panic
// quarantines its session, never stops the server.
func (s *Server) rebuildSafely(id string, l *loaded) (ss *session, err error) {
	defer func() {
		if p := recover(); p != nil {
			ss, err = nil, fmt.Errorf("%s: restoring the session panicked: %v", l.files.dir, p)
		}
	}()
	return s.rebuild(id, l)
}

// quarantine returns the stand-in of a session whose files could not be
// restored (the per-session failure rule): it is logged with the file and
// the reason, listed with its failure, and its other RPCs answer
// FAILED_PRECONDITION naming both, while every other session is served.
// Its files are left as they are, for a person to repair (a restart then
// loads it) or for DeleteSession to remove.
func (s *Server) quarantine(id, dir string, created *statepb.Created, err error) *session {
	file := damagedFile(dir, err)
	s.opts.Log.Error().Str("session", id).Str("file", file).Str("reason", err.Error()).
		Msg("session quarantined: it could not be restored; the other sessions are served")
	q := &session{id: id, failure: &errQuarantined{id: id, file: file, reason: err.Error()}}
	if spec := created.GetSpec(); spec != nil {
		q.spec, q.created, q.method = spec, created.GetCreated(), spec.GetMethod()
		if e, err := controller.Lookup(cmp.Or(spec.GetMethod(), controller.DefaultMethod)); err == nil {
			q.method = e.Name
		}
	}
	return q
}

// damagedFile is the file a session's load error names: the snapshot, the
// log, or else the session's folder.
func damagedFile(dir string, err error) string {
	msg := err.Error()
	for _, name := range []string{snapName, logName} {
		if p := filepath.Join(dir, name); strings.Contains(msg, p) {
			return p
		}
	}
	return dir
}

func (s *Server) rebuild(id string, l *loaded) (*session, error) {
	logPath := filepath.Join(l.files.dir, logName)
	spec := l.created.GetSpec()
	if spec.GetSessionId() != id {
		return nil, fmt.Errorf("%s: session id %q does not match its folder %q", logPath, spec.GetSessionId(), id)
	}
	b, err := build(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: the session's definition no longer validates: %w", logPath, err)
	}
	if l.snapshot != nil {
		if err := b.ctl.Restore(l.snapshot.GetController()); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(l.files.dir, snapName), err)
		}
		if b.ctl.Iteration() != int(l.snapshot.GetIteration()) {
			return nil, fmt.Errorf("%s: snapshot says iteration %d, its controller is at %d", filepath.Join(l.files.dir, snapName), l.snapshot.GetIteration(), b.ctl.Iteration())
		}
	}
	for _, o := range l.tail {
		if err := replay(b.ctl, o); err != nil {
			return nil, fmt.Errorf("%s: %w", logPath, err)
		}
	}
	if b.ctl.Iteration() > 0 {
		// A live server computes the next suggestion after every applied
		// observation (ObserveResponse.next); do the same so the restarted
		// controller's state, snapshot bytes included, is the one that
		// died. Suggest is deterministic in the state, so this is what
		// the client was, or would have been, given.
		if _, err := b.ctl.Suggest(); err != nil {
			s.opts.Log.Warn().Err(err).Str("session", id).Msg("restored; next suggestion failed, left to Suggest")
		}
	}
	ss := newSession(id, spec, l.created.GetCreated(), b)
	ss.files, ss.last = l.files, l.last
	ss.dirty = len(l.tail)
	return ss, nil
}

// replay applies one logged observation and checks that the controller
// suggested, for it, the configuration the log recorded.
func replay(ctl *controller.Controller, o *statepb.Observed) error {
	cfg, err := ctl.Suggest()
	if err != nil {
		return fmt.Errorf("replay iteration %d: %w", o.GetIteration(), err)
	}
	if !slices.Equal([]float64(cfg), o.GetConfig()) {
		return fmt.Errorf("replay iteration %d: the controller suggests %v, the log recorded %v (was the session made by another hyperctl version?)", o.GetIteration(), []float64(cfg), o.GetConfig())
	}
	if err := ctl.Observe(result(o)); err != nil {
		return fmt.Errorf("replay iteration %d: %w", o.GetIteration(), err)
	}
	return nil
}

// result is the driver's view of a logged observation.
func result(o *statepb.Observed) controller.Result {
	return controller.Result{Reward: o.GetReward(), Frames: int(o.GetFrames()), Elapsed: time.Duration(o.GetElapsedNanos()), Returns: o.GetReturns()}
}

// snapshotter writes the queued snapshots, one at a time.
func (s *Server) snapshotter() {
	defer s.wg.Done()
	for ss := range s.snapq {
		ss.queued.Store(false)
		if err := s.snapshot(ss, false); err != nil {
			s.opts.Log.Error().Err(err).Str("session", ss.id).Msg("snapshot failed; the log still holds every observation")
		}
	}
}

// snapshot saves a session's controller if it changed since the last
// snapshot (always when final, if anything changed).
func (s *Server) snapshot(ss *session, final bool) error {
	ss.snapMu.Lock()
	defer ss.snapMu.Unlock()
	ss.mu.Lock()
	if ss.deleted || ss.broken != nil || ss.dirty == 0 || (!final && ss.dirty < s.opts.SnapshotEvery) {
		ss.mu.Unlock()
		return nil
	}
	b, err := ss.ctl.Snapshot()
	it := ss.ctl.Iteration()
	dirty := ss.dirty
	ss.mu.Unlock()
	if err != nil {
		return fmt.Errorf("session %s: %w", ss.id, err)
	}
	if err := ss.files.writeSnapshot(&statepb.Snapshot{Iteration: int32(it), Controller: b}); err != nil {
		return fmt.Errorf("session %s: %w", ss.id, err)
	}
	ss.mu.Lock()
	ss.dirty -= dirty
	ss.mu.Unlock()
	return nil
}

// recoverPanic, deferred while ss.mu is held around controller calls,
// reloads the session from disk when a controller call panics (its memory
// may be half-updated), then lets the panic go on to the RPC layer.
func (ss *session) recoverPanic(s *Server) {
	if p := recover(); p != nil {
		if err := s.reloadLocked(ss); err != nil {
			ss.broken = fmt.Errorf("a controller call panicked and reloading from disk failed: %w", err)
		}
		panic(p)
	}
}

// reloadLocked rebuilds a session from its files (after a failed write or
// a panic). Call with ss.mu held.
func (s *Server) reloadLocked(ss *session) error {
	if ss.files != nil {
		ss.files.close()
	}
	fresh, _, err := s.restore(ss.id)
	if err != nil {
		ss.broken = err
		return err
	}
	ss.ctl, ss.files, ss.last, ss.dirty = fresh.ctl, fresh.files, fresh.last, fresh.dirty
	ss.broken = nil
	s.opts.Log.Warn().Str("session", ss.id).Int("iteration", ss.ctl.Iteration()).Msg("session reloaded from disk")
	return nil
}
