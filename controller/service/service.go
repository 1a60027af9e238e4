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
// snapshots carry a CRC-32C and the files a format version (durable.go). A
// restart cuts only a torn last record (a write cut short by a crash, never
// acknowledged); a session with any other damage is quarantined, its files
// untouched, and the others are served (readFrames, Server.quarantine).
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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/service/internal/statepb"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
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
	// Log receives warnings (torn records cut), quarantined sessions,
	// panics and lifecycle messages.
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

	readOnly bool // Check: load without changing any file, serve nothing

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
	failure *errQuarantined   // set when it could not be restored at start; ctl is then nil
	deleted bool
	dirty   int         // observations since the last snapshot
	queued  atomic.Bool // a snapshot is queued

	snapMu sync.Mutex
}

// New opens (or creates) the state folder, takes its lock and loads every
// session in it. A session whose files cannot be restored is quarantined
// (logged with the file and the reason; its RPCs answer FAILED_PRECONDITION)
// and the others are served: only a state folder that cannot be opened,
// locked or listed is an error.
func New(opts Options) (*Server, error) {
	s, err := open(opts, false)
	if err != nil {
		return nil, err
	}
	if !s.opts.UnsafeNoSync {
		aw, err := newAwaker(s.opts.KeepAwake)
		if err != nil {
			s.opts.Log.Info().Err(err).Msg("observations are durable as always; only the latency is longer")
		}
		s.awake = aw
	}
	s.wg.Add(1)
	go s.snapshotter()
	return s, nil
}

// open fills in the defaults, takes the state folder's lock and loads its
// sessions. readOnly (Check) neither creates nor changes anything but the
// lock file.
func open(opts Options, readOnly bool) (*Server, error) {
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
	if readOnly {
		if st, err := os.Stat(opts.StateDir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("state folder %s: not a folder (%v)", opts.StateDir, err)
		}
	} else if err := os.MkdirAll(opts.StateDir, dirMode); err != nil {
		return nil, fmt.Errorf("state folder: %w", err)
	}
	lock, err := safefile.Acquire(opts.StateDir, lockFile, "state folder")
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, root: filepath.Join(opts.StateDir, sessionsDir), lock: lock, start: time.Now(),
		sessions: map[string]*session{}, snapq: make(chan *session, 4096), readOnly: readOnly,
	}
	if err := s.load(); err != nil {
		for _, ss := range s.sessions {
			ss.files.close()
		}
		lock.Release()
		return nil, err
	}
	return s, nil
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

// Count is the number of sessions, quarantined ones included.
func (s *Server) Count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.sessions)
}

// Quarantined is the number of sessions that could not be restored at
// start (their failure is fixed for the server's life).
func (s *Server) Quarantined() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, ss := range s.sessions {
		if ss.failure != nil {
			n++
		}
	}
	return n
}
