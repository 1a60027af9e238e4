// Package service is `hyperctl serve`: hyperctl's controller driver as a
// durable network service, so that a trainer in any language can embed a
// controller. The API (proto/hyperctl/v1/service.proto) is served with
// Connect, so one handler speaks gRPC, gRPC-Web and Connect's JSON over
// HTTP/1.1; python/hyperctl is a standard-library Python client.
//
// A session is one controller.Controller. Its definition is validated as
// `hyperctl train` validates a config's [controller] table (see build).
//
// Durability: each session has an append-only log in the --state folder,
// whose first record is the session's definition and then one record per
// observed iteration. An Observe is applied, appended and on stable storage
// before it is acknowledged (fdatasync into the log's preallocated zeros;
// store.go's appendObserved says why that is durable); every SnapshotEvery
// iterations a background writer saves controller.Controller.Snapshot
// atomically. A restart rebuilds each session
// from its snapshot and replays the log records after it: a controller's
// Suggest is a deterministic function of its state, so the replayed
// controller suggests exactly what the one that died would have. Records and
// snapshots carry a CRC-32C and the files a format version (durable.go).
//
// A round is one request: Observe's reply carries the suggestion for the
// session's next iteration (ObserveResponse.next), computed by the same code
// as Suggest after the observation is durable. A restarted session computes
// it too, so its state (snapshot bytes included) is the one that died.
//
// Iteration numbers make retries safe: Observe names the iteration it
// reports; the last applied one is acknowledged again without being
// applied, a gap or a step backwards is an error naming both numbers.
package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"

	"github.com/hyperctl/hyperctl/configs/safefile"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/service/internal/statepb"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
)

// Options configure a Server.
type Options struct {
	// StateDir is the --state folder (created if missing). The server holds
	// an exclusive lock on it for its life.
	StateDir string
	// MaxSessions caps the number of sessions (default 1024).
	MaxSessions int
	// SnapshotEvery is the number of observed iterations between snapshots
	// of a session (default 100). Restart replays at most this many.
	SnapshotEvery int
	// Log receives warnings (torn records dropped), panics and lifecycle
	// messages.
	Log zerolog.Logger
	// Version is reported by Health.
	Version string
	// UnsafeNoSync skips the fsyncs of observations, session creations and
	// deletions (snapshots, written in the background, are still synced). It exists to measure what durability
	// costs (the load benchmark): a server with it may lose acknowledged
	// observations on a machine crash. `hyperctl serve` never sets it.
	UnsafeNoSync bool
	// KeepAwake is how long after an HTTP request one CPU is kept from
	// idling, also during the request, while the server handles one request
	// at a time (awake.go): 0 means DefaultKeepAwake, a negative value turns
	// it off. It trades otherwise idle CPU time for latency on a machine
	// whose idle CPUs are slow to wake. Off with UnsafeNoSync.
	KeepAwake time.Duration

	// logChunk overrides the logs' preallocation unit (tests).
	logChunk int64
}

// Server holds the sessions of one --state folder.
type Server struct {
	opts  Options
	root  string // StateDir/sessions
	lock  *safefile.Lock
	start time.Time

	mu       sync.RWMutex
	sessions map[string]*session
	createMu sync.Mutex // serialises creations and deletions of ids

	awake *awaker // nil: off

	qmu    sync.RWMutex // orders sends on snapq with its closing
	snapq  chan *session
	closed bool
	wg     sync.WaitGroup
}

// session is one controller and its files. mu guards the controller and
// the log; snapMu orders snapshot writes with deletion.
type session struct {
	id       string
	spec     *hyperctlv1.CreateSessionRequest
	created  string
	method   string
	interval int
	space    controller.Space
	settings *hyperctlv1.Session // static part of Session, cloned per reply

	mu      sync.Mutex
	ctl     *controller.Controller
	files   *sessionFiles
	last    *statepb.Observed // last applied observation, for retries
	broken  error             // set when memory and disk may disagree
	deleted bool
	dirty   int         // observations since the last snapshot
	queued  atomic.Bool // a snapshot is queued

	snapMu sync.Mutex
}

// New opens (or creates) the state folder, takes its lock and loads every
// session in it. A damaged file stops it with an error naming the file.
func New(opts Options) (*Server, error) {
	if opts.StateDir == "" {
		return nil, errors.New("service: no state folder")
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 1024
	}
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = 100
	}
	if opts.logChunk <= 0 {
		opts.logChunk = logChunk
	}
	if opts.KeepAwake == 0 {
		opts.KeepAwake = DefaultKeepAwake
	}
	if err := os.MkdirAll(opts.StateDir, dirMode); err != nil {
		return nil, fmt.Errorf("state folder: %w", err)
	}
	lock, err := safefile.Acquire(opts.StateDir, lockFile, "state folder")
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, root: filepath.Join(opts.StateDir, sessionsDir), lock: lock, start: time.Now(),
		sessions: map[string]*session{}, snapq: make(chan *session, 4096),
	}
	if err := s.load(); err != nil {
		for _, ss := range s.sessions {
			ss.files.close()
		}
		lock.Release()
		return nil, err
	}
	if !opts.UnsafeNoSync {
		aw, err := newAwaker(opts.KeepAwake)
		if err != nil {
			opts.Log.Info().Err(err).Msg("observations are durable as always; only the latency is longer")
		}
		s.awake = aw
	}
	s.wg.Add(1)
	go s.snapshotter()
	return s, nil
}

// load reads every session of the state folder.
func (s *Server) load() error {
	if _, err := os.Stat(s.root); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(s.root, dirMode); err != nil {
			return fmt.Errorf("state folder: %w", err)
		}
		if !s.opts.UnsafeNoSync {
			if err := safefile.SyncDir(s.opts.StateDir); err != nil {
				return err
			}
		}
	}
	if err := cleanLeftovers(s.root, s.opts.Log); err != nil {
		return err
	}
	ents, err := os.ReadDir(s.root)
	if err != nil {
		return fmt.Errorf("state folder: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		ss, err := s.loadSession(e.Name())
		if err != nil {
			return err
		}
		s.sessions[ss.id] = ss
	}
	if len(s.sessions) > 0 {
		s.opts.Log.Info().Int("sessions", len(s.sessions)).Str("state", s.opts.StateDir).Msg("sessions restored")
	}
	return nil
}

// loadSession rebuilds one session from its folder: definition, snapshot,
// then a replay of the records after the snapshot.
func (s *Server) loadSession(id string) (*session, error) {
	dir := filepath.Join(s.root, id)
	l, err := loadSessionFiles(dir, s.opts.logChunk, s.opts.UnsafeNoSync, s.opts.Log)
	if err != nil {
		return nil, err
	}
	ss, err := s.rebuild(id, l)
	if err != nil {
		l.files.close()
		return nil, err
	}
	return ss, nil
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

func newSession(id string, spec *hyperctlv1.CreateSessionRequest, created string, b *built) *session {
	return &session{
		id: id, spec: spec, created: created, method: b.method, interval: b.interval, space: b.space, ctl: b.ctl,
		settings: &hyperctlv1.Session{
			Id: id, Spec: spec, Method: b.method, Settings: b.settings,
			Interval: int32(b.interval), Names: b.space.Names(), Created: created,
		},
	}
}

// Close writes a final snapshot of every session that changed, closes the
// files and releases the state folder. Stop serving requests first.
func (s *Server) Close() error {
	s.qmu.Lock()
	if s.closed {
		s.qmu.Unlock()
		return nil
	}
	s.closed = true
	close(s.snapq)
	s.qmu.Unlock()
	s.wg.Wait()
	s.awake.close()
	s.mu.RLock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.RUnlock()
	var errs []error
	for _, ss := range all {
		if err := s.snapshot(ss, true); err != nil {
			errs = append(errs, err)
		}
		ss.mu.Lock()
		errs = append(errs, ss.files.close())
		ss.mu.Unlock()
	}
	errs = append(errs, s.lock.Release())
	return errors.Join(errs...)
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

// get returns a session by id.
func (s *Server) get(id string) (*session, error) {
	if id == "" {
		return nil, &FieldError{Field: "session_id", Msg: "missing"}
	}
	s.mu.RLock()
	ss := s.sessions[id]
	s.mu.RUnlock()
	if ss == nil {
		return nil, errNotFound{id}
	}
	return ss, nil
}

type errNotFound struct{ id string }

func (e errNotFound) Error() string {
	return fmt.Sprintf("session_id: no session %q (ListSessions lists them)", e.id)
}

// errConflict is a request that contradicts the session's state (wrong
// iteration, a different definition under the same id).
type errConflict struct{ msg string }

func (e errConflict) Error() string { return e.msg }

// errExists is a create with an id that holds a different definition.
type errExists struct{ msg string }

func (e errExists) Error() string { return e.msg }

// errCapacity is a create beyond MaxSessions.
type errCapacity struct{ msg string }

func (e errCapacity) Error() string { return e.msg }

// errBroken is a session whose disk state could not be written.
type errBroken struct{ msg string }

func (e errBroken) Error() string { return e.msg }

// Create validates and starts a session (see CreateSession in the proto).
func (s *Server) Create(ctx context.Context, req *hyperctlv1.CreateSessionRequest) (*hyperctlv1.Session, bool, error) {
	b, err := build(req)
	if err != nil {
		return nil, false, err
	}
	spec := proto.CloneOf(req)
	s.createMu.Lock()
	defer s.createMu.Unlock()
	if spec.SessionId != "" {
		if ss, _ := s.get(spec.SessionId); ss != nil {
			if proto.Equal(ss.spec, spec) {
				info, err := ss.info()
				return info, true, err
			}
			return nil, false, errExists{fmt.Sprintf("session_id: session %q exists with a different definition", spec.SessionId)}
		}
	} else {
		for {
			spec.SessionId = newID()
			if ss, _ := s.get(spec.SessionId); ss == nil {
				break
			}
		}
	}
	s.mu.RLock()
	n := len(s.sessions)
	s.mu.RUnlock()
	if n >= s.opts.MaxSessions {
		return nil, false, errCapacity{fmt.Sprintf("session cap reached: %d sessions; delete finished ones (DeleteSession) or restart the server with a larger --max-sessions", n)}
	}
	created := time.Now().UTC().Format(time.RFC3339Nano)
	files, err := createSessionFiles(s.root, spec.SessionId, &statepb.Created{Spec: spec, Created: created}, s.opts.logChunk, s.opts.UnsafeNoSync)
	if err != nil {
		return nil, false, err
	}
	ss := newSession(spec.SessionId, spec, created, b)
	ss.files = files
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	s.opts.Log.Info().Str("session", ss.id).Str("method", ss.method).Strs("space", ss.space.Names()).Msg("session created")
	info, err := ss.info()
	return info, false, err
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// info is the session's current description. Call without ss.mu held.
func (ss *session) info() (*hyperctlv1.Session, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.deleted {
		return nil, errNotFound{ss.id}
	}
	return ss.infoLocked(), nil
}

func (ss *session) infoLocked() *hyperctlv1.Session {
	out := proto.CloneOf(ss.settings)
	out.Iteration = int32(ss.ctl.Iteration())
	if cur, ok := ss.ctl.Current(); ok {
		out.Current = cur
	}
	return out
}

// usable reports why a session cannot serve a request. Call with ss.mu.
func (ss *session) usable() error {
	if ss.deleted {
		return errNotFound{ss.id}
	}
	if ss.broken != nil {
		return errBroken{fmt.Sprintf("session %s: %v", ss.id, ss.broken)}
	}
	return nil
}

// Suggest returns the configuration for the session's next iteration. A
// non-nil iteration must be that iteration.
func (s *Server) Suggest(ctx context.Context, id string, iteration *int32) (*hyperctlv1.SuggestResponse, error) {
	ss, err := s.get(id)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if err := ss.usable(); err != nil {
		return nil, err
	}
	next := ss.ctl.Iteration()
	if iteration != nil && int(*iteration) != next {
		return nil, errConflict{fmt.Sprintf("iteration: Suggest for iteration %d, but the session's next iteration is %d", *iteration, next)}
	}
	defer ss.recoverPanic(s)
	return ss.suggestLocked()
}

// suggestLocked is Suggest's work, shared by Observe's next suggestion so
// the two cannot differ: the configuration for the controller's current
// iteration. The controller's Suggest returns the same configuration when
// called again before Observe, and after a restart the rebuilt controller
// computes it from the same state. Call with ss.mu held and recoverPanic
// deferred.
func (ss *session) suggestLocked() (*hyperctlv1.SuggestResponse, error) {
	next := ss.ctl.Iteration()
	cfg, err := ss.ctl.Suggest()
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", ss.id, err)
	}
	resp := &hyperctlv1.SuggestResponse{
		Iteration: int32(next), Values: slices.Clone([]float64(cfg)), Decision: next%ss.interval == 0,
		Config: make(map[string]float64, len(cfg)),
	}
	for i, v := range cfg {
		resp.Config[ss.space.Param(i).Name] = v
	}
	return resp, nil
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
	l, err := loadSessionFiles(filepath.Join(s.root, ss.id), s.opts.logChunk, s.opts.UnsafeNoSync, s.opts.Log)
	if err != nil {
		ss.broken = err
		return err
	}
	fresh, err := s.rebuild(ss.id, l)
	if err != nil {
		l.files.close()
		ss.broken = err
		return err
	}
	ss.ctl, ss.files, ss.last, ss.dirty = fresh.ctl, fresh.files, fresh.last, fresh.dirty
	ss.broken = nil
	s.opts.Log.Warn().Str("session", ss.id).Int("iteration", ss.ctl.Iteration()).Msg("session reloaded from disk")
	return nil
}

// Observe applies one observation (see ObserveRequest in the proto). It
// returns whether it was a retry of the last applied iteration.
func (s *Server) Observe(ctx context.Context, req *hyperctlv1.ObserveRequest) (*hyperctlv1.ObserveResponse, error) {
	if err := checkObservation(req); err != nil {
		return nil, err
	}
	ss, err := s.get(req.GetSessionId())
	if err != nil {
		return nil, err
	}
	rec := &statepb.Observed{
		Iteration: req.GetIteration(), Reward: req.GetReward(), Frames: req.GetFrames(),
		ElapsedNanos: int64(math.Round(req.GetElapsedSeconds() * 1e9)), Returns: req.GetReturns(),
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if err := ss.usable(); err != nil {
		return nil, err
	}
	defer ss.recoverPanic(s)
	next := ss.ctl.Iteration()
	it := int(req.GetIteration())
	switch {
	case it == next:
	case it == next-1 && ss.last != nil:
		if !sameObservation(ss.last, rec) {
			return nil, errConflict{fmt.Sprintf("iteration: iteration %d was already applied with reward %v, frames %d, elapsed %v s; this request has reward %v, frames %d, elapsed %v s",
				it, ss.last.GetReward(), ss.last.GetFrames(), float64(ss.last.GetElapsedNanos())/1e9, rec.GetReward(), rec.GetFrames(), float64(rec.GetElapsedNanos())/1e9)}
		}
		return s.withNext(ss, &hyperctlv1.ObserveResponse{Iteration: int32(it), Duplicate: true, NextIteration: int32(next)}), nil
	case it < next:
		return nil, errConflict{fmt.Sprintf("iteration: Observe for iteration %d steps backwards: the session has applied iterations 0 to %d and its next iteration is %d", it, next-1, next)}
	default:
		return nil, errConflict{fmt.Sprintf("iteration: Observe for iteration %d skips ahead: the session's next iteration is %d", it, next)}
	}
	// Suggest is deterministic in the controller's state: if this server
	// restarted after the client's Suggest, this returns what it got.
	cfg, err := ss.ctl.Suggest()
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", ss.id, err)
	}
	rec.Config = slices.Clone([]float64(cfg))
	if err := ss.ctl.Observe(result(rec)); err != nil {
		// The driver leaves its state unchanged on a rejected result.
		return nil, &FieldError{Field: "reward", Msg: err.Error()}
	}
	if err := ss.files.appendObserved(rec); err != nil {
		s.opts.Log.Error().Err(err).Str("session", ss.id).Msg("observation not recorded; reloading the session from disk")
		if rerr := s.reloadLocked(ss); rerr != nil {
			return nil, errBroken{fmt.Sprintf("session %s: observation not recorded (%v), and reloading from disk failed: %v", ss.id, err, rerr)}
		}
		return nil, errBroken{fmt.Sprintf("session %s: observation not recorded: %v; not applied, retry it", ss.id, err)}
	}
	ss.last = rec
	ss.dirty++
	if ss.dirty >= s.opts.SnapshotEvery && ss.queued.CompareAndSwap(false, true) {
		s.qmu.RLock()
		sent := false
		if !s.closed {
			select {
			case s.snapq <- ss:
				sent = true
			default: // the writer is behind; the log has it all
			}
		}
		s.qmu.RUnlock()
		if !sent {
			ss.queued.Store(false)
		}
	}
	return s.withNext(ss, &hyperctlv1.ObserveResponse{Iteration: int32(it), NextIteration: int32(next + 1)}), nil
}

// withNext sets resp.Next, the suggestion for the session's next iteration,
// on an acknowledgement (a new observation, on stable storage, or a retried
// one): what a Suggest after this reply would return, before or after a
// restart. Its failure does not undo the acknowledgement; the client learns
// of it from the error of its next Suggest. Call with ss.mu held and
// recoverPanic deferred.
func (s *Server) withNext(ss *session, resp *hyperctlv1.ObserveResponse) *hyperctlv1.ObserveResponse {
	if next, err := ss.suggestLocked(); err == nil {
		resp.Next = next
	} else {
		s.opts.Log.Warn().Err(err).Str("session", ss.id).Int32("iteration", resp.GetNextIteration()).Msg("observation acknowledged; next suggestion failed, left to Suggest")
	}
	return resp
}

func sameObservation(a, b *statepb.Observed) bool {
	return a.GetReward() == b.GetReward() && a.GetFrames() == b.GetFrames() &&
		a.GetElapsedNanos() == b.GetElapsedNanos() && slices.Equal(a.GetReturns(), b.GetReturns())
}

// maxReturns bounds the episode returns of one observation.
const maxReturns = 1 << 16

// checkObservation rejects malformed observations before they touch a
// session.
func checkObservation(req *hyperctlv1.ObserveRequest) error {
	if r := req.GetReward(); math.IsNaN(r) || math.IsInf(r, 0) {
		return fieldErr("reward", "%v is not a finite number", r)
	}
	if req.GetIteration() < 0 {
		return fieldErr("iteration", "want >= 0, got %d", req.GetIteration())
	}
	if req.GetFrames() < 0 {
		return fieldErr("frames", "want >= 0, got %d", req.GetFrames())
	}
	if e := req.GetElapsedSeconds(); math.IsNaN(e) || math.IsInf(e, 0) || e < 0 || e > 1e9 {
		return fieldErr("elapsed_seconds", "want a finite number of seconds in [0, 1e9], got %v", e)
	}
	if len(req.GetReturns()) > maxReturns {
		return fieldErr("returns", "%d values, at most %d", len(req.GetReturns()), maxReturns)
	}
	for i, r := range req.GetReturns() {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fieldErr(fmt.Sprintf("returns[%d]", i), "%v is not a finite number", r)
		}
	}
	return nil
}

// maxHistory is the most observations one GetSession returns.
const maxHistory = 10000

// Get returns a session and, on request, part of its history.
func (s *Server) Get(ctx context.Context, req *hyperctlv1.GetSessionRequest) (*hyperctlv1.GetSessionResponse, error) {
	ss, err := s.get(req.GetSessionId())
	if err != nil {
		return nil, err
	}
	if req.GetHistoryFrom() < 0 {
		return nil, fieldErr("history_from", "want >= 0, got %d", req.GetHistoryFrom())
	}
	limit := int(req.GetHistoryLimit())
	if limit < 0 || limit > maxHistory {
		return nil, fieldErr("history_limit", "want 0 (up to %d) or a number in [1, %d], got %d", maxHistory, maxHistory, limit)
	}
	if limit == 0 {
		limit = maxHistory
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if err := ss.usable(); err != nil {
		return nil, err
	}
	resp := &hyperctlv1.GetSessionResponse{Session: ss.infoLocked()}
	if req.GetHistory() {
		recs, err := ss.files.readObserved(int(req.GetHistoryFrom()), limit)
		if err != nil {
			return nil, err
		}
		for _, o := range recs {
			resp.History = append(resp.History, &hyperctlv1.Observation{
				Iteration: o.GetIteration(), Config: o.GetConfig(), Reward: o.GetReward(), Frames: o.GetFrames(),
				ElapsedSeconds: float64(o.GetElapsedNanos()) / 1e9, Returns: o.GetReturns(),
			})
		}
	}
	return resp, nil
}

// List returns every session, sorted by id.
func (s *Server) List(ctx context.Context) []*hyperctlv1.SessionSummary {
	s.mu.RLock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.RUnlock()
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	out := make([]*hyperctlv1.SessionSummary, 0, len(all))
	for _, ss := range all {
		ss.mu.Lock()
		if !ss.deleted {
			out = append(out, &hyperctlv1.SessionSummary{Id: ss.id, Method: ss.method, Iteration: int32(ss.ctl.Iteration()), Created: ss.created})
		}
		ss.mu.Unlock()
	}
	return out
}

// Delete removes a session and its folder.
func (s *Server) Delete(ctx context.Context, id string) error {
	s.createMu.Lock()
	defer s.createMu.Unlock()
	ss, err := s.get(id)
	if err != nil {
		return err
	}
	ss.snapMu.Lock()
	defer ss.snapMu.Unlock()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.files.close()
	if err := removeSessionDir(s.root, id, s.opts.UnsafeNoSync); err != nil {
		ss.broken = err
		return err
	}
	ss.deleted = true
	s.mu.Lock()
	delete(s.sessions, id)
	s.mu.Unlock()
	s.opts.Log.Info().Str("session", id).Msg("session deleted")
	return nil
}

// Count is the number of sessions.
func (s *Server) Count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.sessions)
}

// SessionSnapshot returns a session's controller snapshot
// (controller.Controller.Snapshot), for checks that compare a session with
// an in-process replay.
func (s *Server) SessionSnapshot(id string) ([]byte, error) {
	ss, err := s.get(id)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if err := ss.usable(); err != nil {
		return nil, err
	}
	return ss.ctl.Snapshot()
}
