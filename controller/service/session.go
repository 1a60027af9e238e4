package service

// The session RPCs: create, suggest, observe, get, list and delete.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hyperctl/hyperctl/controller/service/internal/statepb"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
)

// Create validates and starts a session (see CreateSession in the proto).
func (s *Server) Create(ctx context.Context, req *hyperctlv1.CreateSessionRequest) (*hyperctlv1.Session, bool, error) {
	b, err := build(req)
	if err != nil {
		return nil, false, err
	}
	spec := proto.CloneOf(req)
	s.createMu.Lock()
	defer s.createMu.Unlock()
	if err := late(ctx, "session creation"); err != nil {
		return nil, false, err
	}
	if spec.SessionId != "" {
		if ss, _ := s.get(spec.SessionId); ss != nil {
			if ss.failure != nil {
				return nil, false, ss.failure
			}
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
		return nil, false, errCapacity{fmt.Sprintf("session cap reached: %d sessions; delete finished ones (DeleteSession) or restart the server with a larger session cap", n)}
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

// late refuses a request whose deadline (HandlerOptions.HandlerTimeout, or
// the client's own) passed while it waited for what (a session, or the
// creation lock): it is not applied, and the client may retry it.
func late(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: the request's deadline passed while it waited; not applied, retry it: %w", what, err)
	}
	return nil
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
	if ss.failure != nil {
		return nil, ss.failure
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
	if ss.failure != nil {
		return ss.failure
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
	if err := late(ctx, "session "+ss.id); err != nil {
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
	if err := late(ctx, "session "+ss.id); err != nil {
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
		switch {
		case ss.deleted:
		case ss.failure != nil:
			out = append(out, &hyperctlv1.SessionSummary{Id: ss.id, Method: ss.method, Created: ss.created, Failure: ss.failure.Error()})
		default:
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
