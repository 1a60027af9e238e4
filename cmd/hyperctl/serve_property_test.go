package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hyperctl/hyperctl/controller"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
)

// propSession is the property test's model of one session: what the
// server acknowledged, and what it said the next configuration is.
type propSession struct {
	def     *hyperctlv1.CreateSessionRequest
	rewards []float64   // acknowledged observations, iteration i at i
	configs [][]float64 // the configuration the server gave for iteration i (nil: not seen)
	next    []float64   // what the server said iteration len(rewards) runs with (nil: not known)
	broken  bool        // its files were damaged on purpose: quarantined after the next start
}

// config records the configuration given for iteration it.
func (p *propSession) config(it int, v []float64) {
	for len(p.configs) <= it {
		p.configs = append(p.configs, nil)
	}
	p.configs[it] = slices.Clone(v)
}

// propRun is one seeded run of the property test against a real server.
type propRun struct {
	t        *testing.T
	rng      *rand.Rand
	state    string
	srv      *server
	cl       hyperctlv1connect.ControllerServiceClient
	sessions map[string]*propSession
	deleted  map[string]bool
	nextID   int
	restarts int
	counts   map[string]int // what happened, for the log
}

// TestServeProperty drives a real `hyperctl serve` on one state folder with
// seeded random sequences of CreateSession (valid, retried, conflicting and
// float64-edge definitions), Observe (ordinary, extreme and non-finite
// rewards, duplicates, changed retries, gaps, steps back), Suggest,
// DeleteSession, damage to a session's log, graceful restarts and kill -9
// (some with Observes in flight). After every start it checks the
// invariant: the server started; every session that was not refused is
// listed, its history holds exactly the acknowledged observations (an
// in-flight one at most once, with the reward sent), every configuration
// it gave is the one its history records, and it continues exactly: its
// next suggestion is the one given before the restart. A damaged session is
// quarantined (FAILED_PRECONDITION) and the others go on.
func TestServeProperty(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := &propRun{t: t, rng: rand.New(rand.NewPCG(seed, 29)), state: filepath.Join(t.TempDir(), "state"),
				sessions: map[string]*propSession{}, deleted: map[string]bool{}, counts: map[string]int{}}
			r.start()
			for step := 0; step < 200; step++ {
				switch k := r.rng.IntN(200); {
				case k < 20:
					r.create()
				case k < 160:
					r.observe()
				case k < 174:
					r.suggest()
				case k < 180:
					r.remove()
				case k < 183:
					r.damage()
				case k < 188:
					r.restart(false)
				default:
					r.restart(true)
				}
			}
			r.restart(true)
			if r.restarts < 5 {
				t.Fatalf("only %d restarts", r.restarts)
			}
			t.Logf("%d restarts; %v", r.restarts, r.counts)
		})
	}
}

func (r *propRun) start() {
	r.srv = startServer(r.t, "127.0.0.1:0", r.state, "--snapshot-every", "4")
	r.cl = hyperctlv1connect.NewControllerServiceClient(&http.Client{Transport: &http.Transport{}}, "http://"+r.srv.addr)
	r.verify()
}

// restart stops the server (SIGKILL, with Observes in flight for some
// sessions, or SIGTERM), starts it again and checks the invariant.
func (r *propRun) restart(kill bool) {
	r.restarts++
	if !kill {
		_ = r.srv.cmd.Process.Signal(syscall.SIGTERM)
		<-r.srv.exited
		r.start()
		return
	}
	// Up to 4 Observes in flight when the server dies: each is applied
	// once or not at all.
	type flight struct {
		id     string
		reward float64
	}
	var fl []flight
	for _, id := range r.live() {
		if len(fl) < 4 && r.rng.IntN(2) == 0 {
			fl = append(fl, flight{id, r.reward()})
		}
	}
	r.counts["in flight at kill -9"] += len(fl)
	acked := make([]bool, len(fl))
	done := make(chan int, len(fl))
	for i, f := range fl {
		it := len(r.sessions[f.id].rewards)
		go func() {
			_, err := r.cl.Observe(context.Background(), connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: f.id, Iteration: int32(it), Reward: f.reward, ElapsedSeconds: 0.01, Frames: 100}))
			acked[i] = err == nil
			done <- i
		}()
	}
	// Kill once some of them (a seeded number) have been answered: the
	// others are on their way, in the server or in its reply, and end with
	// the connection.
	answered := r.rng.IntN(len(fl) + 1)
	for range answered {
		<-done
	}
	r.srv.kill()
	for range len(fl) - answered {
		<-done
	}
	// Learn which in-flight Observes were applied before starting the
	// checks: each at most once, with the reward that was sent, and every
	// acknowledged one.
	r.srv = startServer(r.t, "127.0.0.1:0", r.state, "--snapshot-every", "4")
	r.cl = hyperctlv1connect.NewControllerServiceClient(&http.Client{Transport: &http.Transport{}}, "http://"+r.srv.addr)
	for i, f := range fl {
		p := r.sessions[f.id]
		if p.broken {
			continue
		}
		g, err := r.cl.GetSession(context.Background(), connect.NewRequest(&hyperctlv1.GetSessionRequest{SessionId: f.id}))
		if err != nil {
			r.t.Fatalf("session %s after kill -9: %v", f.id, err)
		}
		switch n := int(g.Msg.Session.Iteration); {
		case n == len(p.rewards) && !acked[i]:
		case n == len(p.rewards)+1:
			r.counts["in flight, applied"]++
			if acked[i] {
				r.counts["in flight, acknowledged"]++
			}
			p.rewards = append(p.rewards, f.reward)
			p.next = nil // its reply may have been lost with the server
		default:
			r.t.Fatalf("session %s after kill -9 with one Observe in flight (acknowledged: %v): iteration %d, %d acknowledged before", f.id, acked[i], n, len(p.rewards))
		}
	}
	r.verify()
}

// live returns the ids of the sessions being served, sorted.
func (r *propRun) live() []string {
	var ids []string
	for id, p := range r.sessions {
		if !p.broken {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

func (r *propRun) pick() (string, *propSession) {
	ids := r.live()
	if len(ids) == 0 {
		return "", nil
	}
	id := ids[r.rng.IntN(len(ids))]
	return id, r.sessions[id]
}

// verify checks the invariant against the model.
func (r *propRun) verify() {
	t, ctx := r.t, context.Background()
	h, err := r.cl.Health(ctx, connect.NewRequest(&hyperctlv1.HealthRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	broken := 0
	for _, p := range r.sessions {
		if p.broken {
			broken++
		}
	}
	if int(h.Msg.Sessions) != len(r.sessions) || int(h.Msg.Quarantined) != broken {
		t.Fatalf("health: %d sessions, %d quarantined; the model has %d, %d damaged", h.Msg.Sessions, h.Msg.Quarantined, len(r.sessions), broken)
	}
	l, err := r.cl.ListSessions(ctx, connect.NewRequest(&hyperctlv1.ListSessionsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Msg.Sessions {
		p := r.sessions[s.Id]
		if p == nil || (s.Failure != "") != p.broken {
			t.Fatalf("listed %v; the model has %+v", s, p)
		}
	}
	for id, p := range r.sessions {
		if p.broken {
			_, err := r.cl.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: id}))
			if connect.CodeOf(err) != connect.CodeFailedPrecondition {
				t.Fatalf("damaged session %s: %v, want FAILED_PRECONDITION", id, err)
			}
			continue
		}
		g, err := r.cl.GetSession(ctx, connect.NewRequest(&hyperctlv1.GetSessionRequest{SessionId: id, History: true}))
		if err != nil {
			t.Fatalf("session %s: %v", id, err)
		}
		hist := g.Msg.History
		if len(hist) != len(p.rewards) {
			t.Fatalf("session %s: %d observations recorded, %d acknowledged", id, len(hist), len(p.rewards))
		}
		for i, o := range hist {
			if int(o.Iteration) != i || o.Reward != p.rewards[i] {
				t.Fatalf("session %s: record %d is iteration %d with reward %v; acknowledged reward %v", id, i, o.Iteration, o.Reward, p.rewards[i])
			}
			if i < len(p.configs) && p.configs[i] != nil && !slices.Equal(o.Config, p.configs[i]) {
				t.Fatalf("session %s, iteration %d: ran with %v, the server had given %v", id, i, o.Config, p.configs[i])
			}
		}
		r.checkNext(id, p)
	}
	for id := range r.deleted {
		if _, err := r.cl.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: id})); connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("deleted session %s: %v", id, err)
		}
	}
}

// checkNext asks for the session's next configuration: it must be the one
// the server last gave for that iteration.
func (r *propRun) checkNext(id string, p *propSession) {
	sg, err := r.cl.Suggest(context.Background(), connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: id}))
	if err != nil {
		r.t.Fatalf("suggest %s: %v", id, err)
	}
	n := len(p.rewards)
	if int(sg.Msg.Iteration) != n {
		r.t.Fatalf("session %s: suggestion for iteration %d, want %d", id, sg.Msg.Iteration, n)
	}
	if p.next != nil && !slices.Equal(sg.Msg.Values, p.next) {
		r.t.Fatalf("session %s, iteration %d: suggests %v, gave %v before", id, n, sg.Msg.Values, p.next)
	}
	p.next = sg.Msg.Values
	p.config(n, sg.Msg.Values)
}

// reward is an ordinary or extreme (but accepted) reward.
func (r *propRun) reward() float64 {
	switch r.rng.IntN(6) {
	case 0:
		return controller.MaxReward * float64(1-2*r.rng.IntN(2))
	case 1:
		return math.SmallestNonzeroFloat64
	case 2:
		return 0
	}
	return 10 * r.rng.NormFloat64()
}

var propMethods = []struct {
	name     string
	settings map[string]any
}{{"hypercontroller", nil}, {"random", nil}, {"gpucb", nil}, {"neuralbo", map[string]any{"width": 8, "candidates": 16}}}

func (r *propRun) create() {
	t, ctx := r.t, context.Background()
	code := func(err error) connect.Code { return connect.CodeOf(err) }
	switch k := r.rng.IntN(10); {
	case k < 2 && len(r.sessions) > 0: // a retry, or a different definition under an existing id
		ids := r.live()
		if len(ids) == 0 {
			return
		}
		p := r.sessions[ids[r.rng.IntN(len(ids))]]
		req := proto.CloneOf(p.def)
		if k == 1 {
			req.Seed++
			if _, err := r.cl.CreateSession(ctx, connect.NewRequest(req)); code(err) != connect.CodeAlreadyExists {
				t.Fatalf("create %s with another definition: %v", req.SessionId, err)
			}
			return
		}
		resp, err := r.cl.CreateSession(ctx, connect.NewRequest(req))
		if err != nil || !resp.Msg.Existed {
			t.Fatalf("retried create %s: %v %v", req.SessionId, resp, err)
		}
	case k < 4: // the edges of float64, refused at the door with the field named
		bad := []*hyperctlv1.Param{{Name: "x", Low: -1e308, High: 1e308}}
		if k == 3 {
			bad = []*hyperctlv1.Param{{Name: "x", Low: math.NaN(), High: 1}}
		}
		_, err := r.cl.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{SessionId: "edge", Space: bad, Method: "neuralbo"}))
		if code(err) != connect.CodeInvalidArgument || !contains(err, "space[0]") {
			t.Fatalf("create over %v: %v", bad, err)
		}
	default:
		m := propMethods[r.rng.IntN(len(propMethods))]
		space := []*hyperctlv1.Param{{Name: "lr", Low: 1e-5, High: 1e-3, Scale: "log"}, {Name: "clip", Low: 0.1, High: 0.5}}
		if r.rng.IntN(3) == 0 { // the widest space accepted
			space = []*hyperctlv1.Param{{Name: "wide", Low: -math.MaxFloat64 / 2, High: math.MaxFloat64 / 2}, {Name: "logwide", Low: math.SmallestNonzeroFloat64, High: math.MaxFloat64, Scale: "log"}}
		}
		r.nextID++
		req := &hyperctlv1.CreateSessionRequest{SessionId: fmt.Sprintf("s%d", r.nextID), Space: space, Method: m.name,
			Interval: int32(1 + r.rng.IntN(3)), Seed: int64(r.rng.IntN(1000))}
		if m.settings != nil {
			st, err := structpb.NewStruct(m.settings)
			if err != nil {
				t.Fatal(err)
			}
			req.Settings = st
		}
		if _, err := r.cl.CreateSession(ctx, connect.NewRequest(req)); err != nil {
			t.Fatalf("create %v: %v", req, err)
		}
		r.sessions[req.SessionId] = &propSession{def: req}
	}
}

func (r *propRun) observe() {
	id, p := r.pick()
	if p == nil {
		return
	}
	t, ctx := r.t, context.Background()
	n := len(p.rewards)
	req := &hyperctlv1.ObserveRequest{SessionId: id, Iteration: int32(n), Reward: r.reward(), ElapsedSeconds: 0.01, Frames: 100}
	want := connect.Code(0)
	switch k := r.rng.IntN(24); {
	case k == 0:
		req.Reward = []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.rng.IntN(3)]
		want = connect.CodeInvalidArgument
	case k == 1:
		req.Reward = []float64{1e160, -1e200, math.MaxFloat64}[r.rng.IntN(3)]
		want = connect.CodeInvalidArgument
	case k == 2:
		req.ElapsedSeconds = math.NaN()
		want = connect.CodeInvalidArgument
	case k == 3:
		req.Returns = []float64{1, math.Inf(-1)}
		want = connect.CodeInvalidArgument
	case k == 4 && n > 0: // a retry of the last one: acknowledged, not applied again
		req.Iteration, req.Reward = int32(n-1), p.rewards[n-1]
		resp, err := r.cl.Observe(ctx, connect.NewRequest(req))
		if err != nil || !resp.Msg.Duplicate || (p.next != nil && !slices.Equal(resp.Msg.Next.GetValues(), p.next)) {
			t.Fatalf("retry of %s iteration %d: %v %v", id, n-1, resp, err)
		}
		r.counts["observe duplicate"]++
		return
	case k == 5 && n > 0: // a changed retry
		req.Iteration, req.Reward, req.Frames = int32(n-1), p.rewards[n-1], 101
		want = connect.CodeFailedPrecondition
	case k == 6: // a gap
		req.Iteration = int32(n + 1 + r.rng.IntN(3))
		want = connect.CodeFailedPrecondition
	case k == 7 && n > 1: // a step back
		req.Iteration = int32(r.rng.IntN(n - 1))
		want = connect.CodeFailedPrecondition
	}
	resp, err := r.cl.Observe(ctx, connect.NewRequest(req))
	if want != 0 {
		if connect.CodeOf(err) != want {
			t.Fatalf("observe %s %v: %v, want %v", id, req, err, want)
		}
		r.counts["observe refused: "+want.String()]++
		return
	}
	if connect.CodeOf(err) == connect.CodeInvalidArgument && contains(err, "reward") {
		r.counts["observe refused by the method"]++
		return // a method may refuse a value it cannot keep finite; the session is unchanged (checked by verify)
	}
	r.counts["observe applied"]++
	if err != nil || resp.Msg.Duplicate || int(resp.Msg.NextIteration) != n+1 {
		t.Fatalf("observe %s iteration %d reward %v: %v %v", id, n, req.Reward, resp, err)
	}
	p.rewards = append(p.rewards, req.Reward)
	p.next = resp.Msg.Next.GetValues()
	p.config(n+1, p.next)
}

func (r *propRun) suggest() {
	id, p := r.pick()
	if p != nil {
		r.checkNext(id, p)
	}
}

func (r *propRun) remove() {
	id, p := r.pick()
	if p == nil || r.rng.IntN(2) == 0 {
		return
	}
	if _, err := r.cl.DeleteSession(context.Background(), connect.NewRequest(&hyperctlv1.DeleteSessionRequest{SessionId: id})); err != nil {
		r.t.Fatalf("delete %s: %v", id, err)
	}
	delete(r.sessions, id)
	r.deleted[id] = true
}

// damage flips a byte of a session's creation record (the log's first),
// so that the session is quarantined at the next start.
func (r *propRun) damage() {
	id, p := r.pick()
	if p == nil {
		return
	}
	path := filepath.Join(r.state, "sessions", id, "log")
	b, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatal(err)
	}
	b[8+8+r.rng.IntN(8)] ^= 0x5a // inside the first record's payload
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := f.WriteAt(b[:32], 0); err != nil {
		r.t.Fatal(err)
	}
	f.Close()
	p.broken = true
	r.counts["damaged"]++
	r.restart(r.rng.IntN(2) == 0)
}

// contains reports whether err is a Connect error whose message holds s.
func contains(err error, s string) bool {
	var ce *connect.Error
	return errors.As(err, &ce) && strings.Contains(ce.Message(), s)
}
