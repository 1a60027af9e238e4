package dashboard

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hyperctl/hyperctl/controller"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
)

// SessionReader is the read-only view of a service's sessions the page
// needs; *service.Server has it (the methods behind ListSessions and
// GetSession).
type SessionReader interface {
	List(ctx context.Context) []*hyperctlv1.SessionSummary
	Get(ctx context.Context, req *hyperctlv1.GetSessionRequest) (*hyperctlv1.GetSessionResponse, error)
}

// Sessions is the Source of `hyperctl serve`'s page: each session is a run
// whose x axis is the observation (the iteration observed), with its
// reward, its objective and the values the controller suggested. Sessions
// over the same space (the same parameter names) are overlaid.
type Sessions struct {
	r     SessionReader
	title string
	poll  time.Duration
}

// NewSessions returns the Source for r's sessions; title names the service
// (its state folder), poll is how often the page asks (default 2 s).
func NewSessions(r SessionReader, title string, poll time.Duration) *Sessions {
	if poll <= 0 {
		poll = 2 * time.Second
	}
	return &Sessions{r: r, title: title, poll: poll}
}

// The series columns of a session besides its parameters'.
const (
	colObservation = "iteration"
	colReward      = "reward"
	colObjective   = "objective"
)

// sessionCharts are the charts of a sessions dashboard, before the
// parameters'.
func sessionCharts() []Chart {
	return []Chart{
		{Key: colReward, Table: "train", Title: "Reward R_t (observed)", Label: "reward"},
		{Key: colObjective, Table: "train", Title: "Objective X_t (from the session's objective)", Label: "objective"},
	}
}

// Overview implements Source.
func (s *Sessions) Overview(ctx context.Context) (*Overview, error) {
	ov := &Overview{
		Kind: "sessions", Title: s.title, Group: "space",
		X: Axis{Key: colObservation, Label: "observation (iteration)"}, Charts: sessionCharts(),
		PollMS: s.poll.Milliseconds(), Updated: time.Now().Format(time.RFC3339),
	}
	for _, sum := range s.r.List(ctx) {
		r := Run{ID: sum.GetId(), Label: sum.GetMethod(), Done: int(sum.GetIteration()), Generation: sum.GetCreated(), State: "running"}
		resp, err := s.r.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: sum.GetId()})
		if err != nil {
			r.State, r.Detail = "failed", err.Error()
			ov.Problems = append(ov.Problems, fmt.Sprintf("session %s: %v", sum.GetId(), err))
			ov.Runs = append(ov.Runs, r)
			continue
		}
		info := resp.GetSession()
		seed := info.GetSpec().GetSeed()
		r.Env, r.Seed, r.Done = strings.Join(info.GetNames(), ", "), &seed, int(info.GetIteration())
		r.Iterations = int(info.GetSpec().GetIterations())
		r.Detail = fmt.Sprintf("serving; next iteration %d; created %s", info.GetIteration(), info.GetCreated())
		r.Stamp = strconv.Itoa(int(info.GetIteration()))
		ov.Runs = append(ov.Runs, r)
	}
	return ov, nil
}

// Series implements Source. A session has one table, its observations;
// from counts them.
func (s *Sessions) Series(ctx context.Context, id string, from, evalFrom, maxRows int) (*Series, error) {
	if from > math.MaxInt32 {
		return nil, &RequestError{Status: http.StatusBadRequest, Field: "from", Msg: fmt.Sprintf("want a row index <= %d, got %d", math.MaxInt32, from)}
	}
	known := false
	for _, sum := range s.r.List(ctx) {
		known = known || sum.GetId() == id
	}
	if !known {
		return nil, &RequestError{Status: http.StatusNotFound, Field: "id", Msg: fmt.Sprintf("no session %q (/api/overview lists them)", id)}
	}
	// The observation before from gives the objective at from its R_{t-1}.
	first := max(0, from-1)
	resp, err := s.r.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: id, History: true, HistoryFrom: int32(first), HistoryLimit: int32(min(maxRows+1, 10000))})
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	info := resp.GetSession()
	obj := controller.DefaultSetup().Objective
	if name := info.GetSpec().GetObjective(); name != "" {
		if obj, err = controller.ParseObjective(name); err != nil {
			return nil, fmt.Errorf("session %s: objective: %w", id, err)
		}
	}
	// A parameter's column is its name, unless that is one of the other
	// columns' names.
	names := slices.Clone(info.GetNames())
	for i, n := range names {
		if n == colObservation || n == colReward || n == colObjective {
			names[i] = "param " + n
		}
	}
	ser := &Series{ID: id, Generation: info.GetCreated(), From: from, Train: map[string]Column{}, Eval: map[string]Column{}, Hyper: names, Rows: int(info.GetIteration())}
	var it, reward, objective Column
	params := make([]Column, len(names))
	prev, havePrev := 0.0, false
	for _, o := range resp.GetHistory() {
		res := controller.Result{Reward: o.GetReward(), Frames: int(o.GetFrames()), Elapsed: time.Duration(math.Round(o.GetElapsedSeconds() * 1e9)), Returns: o.GetReturns()}
		x, ok := obj.Value(res, prev, havePrev)
		prev, havePrev = o.GetReward(), true
		if int(o.GetIteration()) < from {
			continue
		}
		if len(it) == maxRows {
			break
		}
		if !ok {
			x = math.NaN()
		}
		it = append(it, float64(o.GetIteration()))
		reward = append(reward, o.GetReward())
		objective = append(objective, x)
		for i := range names {
			v := math.NaN()
			if i < len(o.GetConfig()) {
				v = o.GetConfig()[i]
			}
			params[i] = append(params[i], v)
		}
	}
	ser.Train[colObservation], ser.Train[colReward], ser.Train[colObjective] = it, reward, objective
	for i, n := range names {
		ser.Train[n] = params[i]
	}
	return ser, nil
}
