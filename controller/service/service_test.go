package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	_ "github.com/hyperctl/hyperctl/baselines/all" // register every controller
	"github.com/hyperctl/hyperctl/controller"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// twoParams is the space most tests use.
func twoParams() []*hyperctlv1.Param {
	return []*hyperctlv1.Param{
		{Name: "lr", Low: 1e-5, High: 1e-3, Scale: "log"},
		{Name: "clip", Low: 0.1, High: 0.5},
	}
}

func mustStruct(t testing.TB, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newTestServer opens a server on dir (a fresh temp dir when empty).
func newTestServer(t testing.TB, dir string, opts ...func(*Options)) *Server {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	// A small preallocation unit, so that the logs grow many times.
	o := Options{StateDir: dir, Log: zerolog.Nop(), SnapshotEvery: 7, logChunk: 512}
	for _, f := range opts {
		f(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// crash drops a server as a kill -9 would: no final snapshot, files and
// lock closed by "the kernel".
func crash(s *Server) {
	s.qmu.Lock()
	s.closed = true
	close(s.snapq)
	s.qmu.Unlock()
	s.wg.Wait()
	for _, ss := range s.sessions {
		ss.files.close()
	}
	s.lock.Release() // closes the descriptor, as the kernel does on kill -9
}

// reward is a deterministic synthetic training reward for a configuration.
func reward(it int, cfg []float64, rng *rand.Rand) float64 {
	v := float64(it) * 0.01
	for i, x := range cfg {
		v -= (math.Log10(x) + float64(i+2)) * (math.Log10(x) + float64(i+2)) * 0.1
	}
	return v + 0.05*rng.NormFloat64()
}

func TestCreateValidatesLikeTheCLI(t *testing.T) {
	s := newTestServer(t, "")
	defer s.Close()
	base := func() *hyperctlv1.CreateSessionRequest {
		return &hyperctlv1.CreateSessionRequest{Space: twoParams()}
	}
	cases := []struct {
		name   string
		edit   func(r *hyperctlv1.CreateSessionRequest)
		field  string
		substr string
	}{
		{"unknown method", func(r *hyperctlv1.CreateSessionRequest) { r.Method = "hyperctrl" }, "method", "valid controllers: bilevel, deltabo, goucb, gpucb, hoof, hyperband, hypercontroller"},
		{"a method that needs trials", func(r *hyperctlv1.CreateSessionRequest) { r.Method = "hoof" }, "method", "hoof chooses among trial updates"},
		{"a method that acts within the update", func(r *hyperctlv1.CreateSessionRequest) {
			r.Method = "kladaptive"
			r.Space = []*hyperctlv1.Param{{Name: "lr", Low: 1e-5, High: 1e-2, Scale: "log"}}
		}, "method", "kladaptive moves the learning rate within the update"},
		{"fixed is not a method", func(r *hyperctlv1.CreateSessionRequest) { r.Method = "fixed" }, "method", "unknown controller \"fixed\""},
		{"unknown setting", func(r *hyperctlv1.CreateSessionRequest) { r.Settings = mustStruct(t, map[string]any{"dd": 3}) }, "settings.dd", "unknown key (did you mean d?)"},
		{"out of range setting", func(r *hyperctlv1.CreateSessionRequest) { r.Settings = mustStruct(t, map[string]any{"d": 1}) }, "settings.d", "want an integer in [2, 1000]"},
		{"wrong type", func(r *hyperctlv1.CreateSessionRequest) {
			r.Method = "gpucb"
			r.Settings = mustStruct(t, map[string]any{"window": 2.5})
		}, "settings.window", "want an integer, got 2.5 (a number)"},
		{"null setting", func(r *hyperctlv1.CreateSessionRequest) { r.Settings = mustStruct(t, map[string]any{"d": nil}) }, "settings.d", "null"},
		{"transfer_from refused", func(r *hyperctlv1.CreateSessionRequest) {
			r.Method = "deltabo"
			r.Settings = mustStruct(t, map[string]any{"transfer_from": "/etc"})
		}, "settings.transfer_from", "not accepted"},
		{"bad interval", func(r *hyperctlv1.CreateSessionRequest) { r.Interval = -2 }, "interval", "want an integer >= 1 or \"auto\", got -2"},
		{"auto and a number", func(r *hyperctlv1.CreateSessionRequest) { r.Interval, r.IntervalAuto = 3, true }, "interval", "not both"},
		{"auto without a recommender", func(r *hyperctlv1.CreateSessionRequest) { r.IntervalAuto = true }, "interval", "recommends its interval"},
		{"bad objective", func(r *hyperctlv1.CreateSessionRequest) { r.Objective = "loss" }, "objective", `"loss": want one of delta, reward, delta_per_second`},
		{"negative seed", func(r *hyperctlv1.CreateSessionRequest) { r.Seed = -1 }, "seed", "want an integer in [0, 2305843009213693951], got -1"},
		{"negative iterations", func(r *hyperctlv1.CreateSessionRequest) { r.Iterations = -5 }, "iterations", "want an integer in [1, 10000000], got -5"},
		{"empty space", func(r *hyperctlv1.CreateSessionRequest) { r.Space = nil }, "space", "no parameters"},
		{"bad scale", func(r *hyperctlv1.CreateSessionRequest) { r.Space[1].Scale = "exp" }, "space[1].scale", `want "linear" or "log", got "exp"`},
		{"low >= high", func(r *hyperctlv1.CreateSessionRequest) { r.Space[1].Low = 0.6 }, "space[1]", "low (0.6) must be < high (0.5)"},
		{"log with low <= 0", func(r *hyperctlv1.CreateSessionRequest) { r.Space[0].Low = 0 }, "space[0]", "must be > 0 on a log scale"},
		{"non-finite bound", func(r *hyperctlv1.CreateSessionRequest) { r.Space[1].High = math.Inf(1) }, "space[1]", "must be finite"},
		{"span overflows", func(r *hyperctlv1.CreateSessionRequest) {
			r.Method = "neuralbo"
			r.Space = []*hyperctlv1.Param{{Name: "x", Low: -1e308, High: 1e308}}
		}, "space[0]", "x: span: high − low = 1e+308 − (-1e+308) overflows float64"},
		{"duplicate name", func(r *hyperctlv1.CreateSessionRequest) { r.Space[1].Name = "lr" }, "space", `"lr" listed twice`},
		{"empty name", func(r *hyperctlv1.CreateSessionRequest) { r.Space[1].Name = "" }, "space[1]", "name: must not be empty"},
		{"bad id", func(r *hyperctlv1.CreateSessionRequest) { r.SessionId = "../x" }, "session_id", "want 1 to 64 letters"},
		{"deltabo without a source", func(r *hyperctlv1.CreateSessionRequest) { r.Method = "deltabo" }, "settings", "transfer"},
		{"start of the wrong length", func(r *hyperctlv1.CreateSessionRequest) { r.Start = []float64{3e-4} }, "start", "config has 1 values, space has 2 parameters"},
		{"start out of bounds", func(r *hyperctlv1.CreateSessionRequest) { r.Start = []float64{3e-4, 0.9} }, "start", "clip: value 0.9 outside [0.1, 0.5]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := base()
			tc.edit(r)
			_, _, err := s.Create(context.Background(), r)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v (%T), want a FieldError", err, err)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Msg, tc.substr) {
				t.Fatalf("got %q, want field %q and a message containing %q", fe.Error(), tc.field, tc.substr)
			}
		})
	}
	if n := s.Count(); n != 0 {
		t.Fatalf("%d sessions after rejected creates", n)
	}

	// Valid ones, with the CLI's defaults filled in.
	info, existed, err := s.Create(context.Background(), &hyperctlv1.CreateSessionRequest{SessionId: "g", Space: twoParams(), Method: "GPUCB", Settings: mustStruct(t, map[string]any{"window": 40, "delta": 0.2})})
	if err != nil || existed {
		t.Fatal(err, existed)
	}
	if info.Method != "gpucb" || info.Interval != 5 || info.Settings.Fields["window"].GetNumberValue() != 40 || info.Settings.Fields["kernel"].GetStringValue() == "" {
		t.Fatalf("resolved session %v", info)
	}
	// A start is in force for the first decision period, then the method
	// chooses.
	start := []float64{3e-5, 0.2}
	info, _, err = s.Create(context.Background(), &hyperctlv1.CreateSessionRequest{Space: twoParams(), Interval: 2, Seed: 4, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	for it := 0; it < 2; it++ {
		sug, err := s.Suggest(context.Background(), info.Id, nil)
		if err != nil || !slices.Equal(sug.Values, start) {
			t.Fatalf("iteration %d: suggested %v (%v), want the start %v", it, sug.GetValues(), err, start)
		}
		if _, err := s.Observe(context.Background(), &hyperctlv1.ObserveRequest{SessionId: info.Id, Iteration: int32(it), Reward: float64(it)}); err != nil {
			t.Fatal(err)
		}
	}
	// bilevel's interval = "auto" from its own steps_per_iteration.
	info, _, err = s.Create(context.Background(), &hyperctlv1.CreateSessionRequest{Space: twoParams(), Method: "bilevel", IntervalAuto: true, Iterations: 200, Settings: mustStruct(t, map[string]any{"steps_per_iteration": 40})})
	if err != nil || info.Interval < 1 {
		t.Fatal(err, info)
	}
}

func TestCreateIsIdempotentByID(t *testing.T) {
	s := newTestServer(t, "", func(o *Options) { o.MaxSessions = 2 })
	defer s.Close()
	req := &hyperctlv1.CreateSessionRequest{SessionId: "run-1", Space: twoParams(), Seed: 3}
	a, existed, err := s.Create(context.Background(), req)
	if err != nil || existed {
		t.Fatal(err, existed)
	}
	b, existed, err := s.Create(context.Background(), proto.CloneOf(req))
	if err != nil || !existed || a.Id != b.Id {
		t.Fatalf("retry: %v, existed %v, ids %s %s", err, existed, a.Id, b.Id)
	}
	other := proto.CloneOf(req)
	other.Seed = 4
	if _, _, err := s.Create(context.Background(), other); !errors.As(err, new(errExists)) {
		t.Fatalf("different definition under the same id: %v", err)
	}
	if _, _, err := s.Create(context.Background(), &hyperctlv1.CreateSessionRequest{Space: twoParams()}); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Create(context.Background(), &hyperctlv1.CreateSessionRequest{Space: twoParams()})
	if !errors.As(err, new(errCapacity)) || !strings.Contains(err.Error(), "2 sessions") {
		t.Fatalf("beyond the cap: %v", err)
	}
}

func TestObserveRetriesGapsAndBadRewards(t *testing.T) {
	s := newTestServer(t, "")
	defer s.Close()
	ctx := context.Background()
	if _, _, err := s.Create(ctx, &hyperctlv1.CreateSessionRequest{SessionId: "a", Space: twoParams(), Interval: 2}); err != nil {
		t.Fatal(err)
	}
	obs := func(it int32, r float64) (*hyperctlv1.ObserveResponse, error) {
		return s.Observe(ctx, &hyperctlv1.ObserveRequest{SessionId: "a", Iteration: it, Reward: r, Frames: 100, ElapsedSeconds: 0.5})
	}
	for it := int32(0); it < 3; it++ {
		if _, err := s.Suggest(ctx, "a", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := obs(it, float64(it)); err != nil {
			t.Fatal(err)
		}
	}

	resp, err := obs(2, 2)
	if err != nil || !resp.Duplicate || resp.NextIteration != 3 {
		t.Fatalf("retry of the last iteration: %v %v", resp, err)
	}
	cases := []struct {
		name   string
		it     int32
		r      float64
		substr string
	}{
		{"changed retry", 2, 5, "iteration 2 was already applied with reward 2"},
		{"backwards", 1, 1, "iteration 1 steps backwards: the session has applied iterations 0 to 2 and its next iteration is 3"},
		{"gap", 5, 1, "iteration 5 skips ahead: the session's next iteration is 3"},
	}
	for _, tc := range cases {
		_, err := obs(tc.it, tc.r)
		if !errors.As(err, new(errConflict)) || !strings.Contains(err.Error(), tc.substr) {
			t.Errorf("%s: got %v, want a conflict with %q", tc.name, err, tc.substr)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := obs(3, bad)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "reward" {
			t.Errorf("reward %v: got %v, want a reward FieldError", bad, err)
		}
	}
	// A reward beyond ±controller.MaxReward (whose square, or the objective
	// of the next one, would overflow) is refused by the driver, state
	// unchanged, and the session goes on.
	if _, err := s.Suggest(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	before3, _ := s.SessionSnapshot("a")
	for _, big := range []float64{-math.MaxFloat64, math.MaxFloat64, 1e160, -1e200} {
		_, err := obs(3, big)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "reward" || !strings.Contains(fe.Msg, "MaxReward") {
			t.Errorf("reward %g: got %v, want a reward FieldError naming MaxReward", big, err)
		}
		if got, _ := s.SessionSnapshot("a"); !bytes.Equal(got, before3) {
			t.Fatalf("the refused reward %g changed the state", big)
		}
	}
	if _, err := obs(3, controller.MaxReward); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Suggest(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	after3, _ := s.SessionSnapshot("a")
	for _, tc := range []struct {
		req   *hyperctlv1.ObserveRequest
		field string
	}{
		{&hyperctlv1.ObserveRequest{SessionId: "a", Iteration: 4, Frames: -1}, "frames"},
		{&hyperctlv1.ObserveRequest{SessionId: "a", Iteration: 4, ElapsedSeconds: -1}, "elapsed_seconds"},
		{&hyperctlv1.ObserveRequest{SessionId: "a", Iteration: -1}, "iteration"},
		{&hyperctlv1.ObserveRequest{SessionId: "a", Iteration: 4, Returns: []float64{1, math.NaN()}}, "returns[1]"},
		{&hyperctlv1.ObserveRequest{Iteration: 4}, "session_id"},
	} {
		_, err := s.Observe(ctx, tc.req)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%v: got %v, want field %s", tc.req, err, tc.field)
		}
	}
	if got, _ := s.SessionSnapshot("a"); !bytes.Equal(got, after3) {
		t.Fatal("rejected observations changed the state")
	}
	// Suggest with an explicit iteration must match.
	want := int32(7)
	if _, err := s.Suggest(ctx, "a", &want); !errors.As(err, new(errConflict)) || !strings.Contains(err.Error(), "Suggest for iteration 7, but the session's next iteration is 4") {
		t.Fatalf("suggest with a wrong iteration: %v", err)
	}
	// History holds every applied observation once.
	h, err := s.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: "a", History: true})
	if err != nil {
		t.Fatal(err)
	}
	var its []int32
	for _, o := range h.History {
		its = append(its, o.Iteration)
	}
	if !slices.Equal(its, []int32{0, 1, 2, 3}) || h.History[1].Frames != 100 || h.History[1].ElapsedSeconds != 0.5 {
		t.Fatalf("history %v", h.History)
	}
}

// driveDirect runs n rounds of a session through the server's Go API and
// returns the suggestions.
func driveDirect(t testing.TB, s *Server, id string, from, n int, rng *rand.Rand) [][]float64 {
	t.Helper()
	var out [][]float64
	for it := from; it < from+n; it++ {
		sg, err := s.Suggest(context.Background(), id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if int(sg.Iteration) != it {
			t.Fatalf("suggested for iteration %d, want %d", sg.Iteration, it)
		}
		out = append(out, sg.Values)
		if _, err := s.Observe(context.Background(), &hyperctlv1.ObserveRequest{SessionId: id, Iteration: int32(it), Reward: reward(it, sg.Values, rng), Frames: 64, ElapsedSeconds: 0.01}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestRestartAfterCrashContinuesExactly(t *testing.T) {
	for _, method := range []string{"hypercontroller", "gpucb", "random"} {
		t.Run(method, func(t *testing.T) {
			req := &hyperctlv1.CreateSessionRequest{SessionId: "s", Space: twoParams(), Method: method, Interval: 2, Seed: 11}
			// Uninterrupted reference.
			ref := newTestServer(t, "")
			if _, _, err := ref.Create(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			want := driveDirect(t, ref, "s", 0, 30, rand.New(rand.NewPCG(1, 2)))
			wantSnap, _ := ref.SessionSnapshot("s")
			ref.Close()

			// Crashes at several points: mid decision period, right after a
			// snapshot (SnapshotEvery = 7), after a Suggest without Observe.
			dir := t.TempDir()
			rng := rand.New(rand.NewPCG(1, 2))
			s := newTestServer(t, dir)
			if _, _, err := s.Create(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			var got [][]float64
			it := 0
			for _, n := range []int{5, 9, 3, 13} {
				got = append(got, driveDirect(t, s, "s", it, n, rng)...)
				it += n
				if it == 17 {
					if _, err := s.Suggest(context.Background(), "s", nil); err != nil {
						t.Fatal(err)
					}
				}
				crash(s)
				s = newTestServer(t, dir)
			}
			defer s.Close()
			for i := range want {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("iteration %d: suggested %v after restarts, %v uninterrupted", i, got[i], want[i])
				}
			}
			if snap, _ := s.SessionSnapshot("s"); !bytes.Equal(snap, wantSnap) {
				t.Fatal("final snapshot differs from the uninterrupted run's")
			}
			if _, err := os.Stat(filepath.Join(dir, sessionsDir, "s", snapName)); err != nil {
				t.Fatalf("no snapshot was written: %v", err)
			}
		})
	}
}

func TestDamagedFiles(t *testing.T) {
	prepare := func(t *testing.T) (string, string) {
		dir := t.TempDir()
		s := newTestServer(t, dir, func(o *Options) { o.SnapshotEvery = 1000 })
		for _, id := range []string{"s", "ok"} {
			if _, _, err := s.Create(context.Background(), &hyperctlv1.CreateSessionRequest{SessionId: id, Space: twoParams()}); err != nil {
				t.Fatal(err)
			}
			driveDirect(t, s, id, 0, 6, rand.New(rand.NewPCG(3, 4)))
		}
		if err := s.Close(); err != nil { // writes a snapshot
			t.Fatal(err)
		}
		return dir, filepath.Join(dir, sessionsDir, "s")
	}
	appendTo := func(t *testing.T, path string, b []byte) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b)
		f.Close()
	}
	// openErr opens the server, which must start, and returns session s's
	// error (nil when it is served) and the logs. Session ok, untouched,
	// must be served either way, and --check (Check) must agree.
	openErr := func(dir string) (error, string) {
		t.Helper()
		states, err := Check(dir, zerolog.Nop())
		if err != nil {
			t.Fatalf("check: %v", err)
		}
		var buf bytes.Buffer
		s, err := New(Options{StateDir: dir, Log: zerolog.New(&buf)})
		if err != nil {
			t.Fatalf("the server did not start: %v", err)
		}
		defer s.Close()
		ctx := context.Background()
		if _, err := s.Suggest(ctx, "ok", nil); err != nil {
			t.Fatalf("the undamaged session is not served: %v", err)
		}
		_, err = s.Suggest(ctx, "s", nil)
		if len(states) != 2 || states[0].ID != "ok" || states[0].Failure != "" || states[0].Iteration != 6 || states[1].ID != "s" {
			t.Fatalf("check reported %+v", states)
		}
		if (err == nil) != (states[1].Failure == "") {
			t.Fatalf("check reported %+v, the server %v", states[1], err)
		}
		if err != nil {
			var q *errQuarantined
			if !errors.As(err, &q) || !strings.Contains(buf.String(), "quarantined") || !strings.Contains(buf.String(), q.file) {
				t.Fatalf("session s: %v, logs %s; want it quarantined, logged with its file", err, buf.String())
			}
			if !strings.Contains(states[1].Failure, states[1].File) || states[1].File != q.file {
				t.Fatalf("check reported %+v, the server %v", states[1], err)
			}
			l := s.List(ctx)
			if len(l) != 2 || l[1].Id != "s" || l[1].Failure != err.Error() || l[0].Failure != "" {
				t.Fatalf("list: %v", l)
			}
		}
		return err, buf.String()
	}

	// recordsEnd is the end of the log's intact records (the preallocated
	// zeros follow).
	recordsEnd := func(t *testing.T, path string) int64 {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, good, torn, err := readFrames(path, b, headerLen)
		if err != nil || torn || good == int64(len(b)) {
			t.Fatalf("log %s: records end at %d of %d bytes, torn %v, %v; want preallocated zeros after them", path, good, len(b), torn, err)
		}
		return good
	}
	writeAt := func(t *testing.T, path string, b []byte, off int64) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
	// A damaged last record is cut only when it is torn (readFrames): the
	// file ends inside its header or inside the payload its length field
	// gives. At the end of a log without preallocated zeros (a log written
	// by hand or by an older hyperctl) the short header and the short body
	// below are torn; in the preallocated zeros every tail is complete
	// (the file holds every byte its length field gives) and damaged, and
	// so are a complete record with a bad checksum, a zero length before
	// other bytes and a length beyond any record's anywhere: the session
	// is quarantined unchanged.
	t.Run("damaged tail record: torn is cut with a warning, complete is quarantined", func(t *testing.T) {
		for _, c := range []struct {
			name      string
			tail      []byte
			tornAtEOF bool
		}{
			{"short header", []byte{7, 0, 0}, true},
			{"short body", appendFrame(nil, []byte("0123456789"))[:12], true},
			{"bad checksum", func() []byte { b := appendFrame(nil, []byte("0123456789")); b[len(b)-1] ^= 1; return b }(), false},
			{"zero header", append(make([]byte, frameHeaderLen), "0123456789"...), false},
			{"oversized length", []byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5}, false},
		} {
			for _, where := range []string{"in the preallocated space", "at the end of an unpreallocated log"} {
				t.Run(c.name+"/"+where, func(t *testing.T) {
					dir, sdir := prepare(t)
					p := filepath.Join(sdir, logName)
					end := recordsEnd(t, p)
					if where == "at the end of an unpreallocated log" {
						if err := os.Truncate(p, end); err != nil {
							t.Fatal(err)
						}
					}
					writeAt(t, p, c.tail, end)
					damaged, _ := os.ReadFile(p)
					err, logs := openErr(dir)
					if !c.tornAtEOF || where == "in the preallocated space" {
						if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not dropped") {
							t.Fatalf("got %v, want a refusal naming %s", err, p)
						}
						if b, _ := os.ReadFile(p); !bytes.Equal(b, damaged) {
							t.Fatal("the quarantined session's log was changed")
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(logs, "torn") {
						t.Fatalf("no warning logged: %s", logs)
					}
					s := newTestServer(t, dir)
					defer s.Close()
					h, err := s.Get(context.Background(), &hyperctlv1.GetSessionRequest{SessionId: "s"})
					if err != nil || h.Session.Iteration != 6 {
						t.Fatalf("after dropping the torn record: %v %v", h, err)
					}
					// The session goes on: the next record lands where the
					// torn one was.
					driveDirect(t, s, "s", 6, 2, rand.New(rand.NewPCG(9, 9)))
				})
			}
		}
	})
	t.Run("zeros after the records are the clean end", func(t *testing.T) {
		dir, sdir := prepare(t)
		appendTo(t, filepath.Join(sdir, logName), make([]byte, 40))
		err, logs := openErr(dir)
		if err != nil || strings.Contains(logs, "torn") {
			t.Fatalf("got %v, logs %s; want a clean open", err, logs)
		}
	})
	t.Run("damaged record in the middle quarantines the session naming the file", func(t *testing.T) {
		dir, sdir := prepare(t)
		p := filepath.Join(sdir, logName)
		b, _ := os.ReadFile(p)
		b[headerLen+20] ^= 0xff
		os.WriteFile(p, b, fileMode)
		err, _ := openErr(dir)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), "intact record follows") {
			t.Fatalf("got %v, want a refusal naming %s", err, p)
		}
	})
	t.Run("damaged snapshot quarantines the session naming the file", func(t *testing.T) {
		dir, sdir := prepare(t)
		p := filepath.Join(sdir, snapName)
		b, _ := os.ReadFile(p)
		b[len(b)/2] ^= 0xff
		os.WriteFile(p, b, fileMode)
		err, _ := openErr(dir)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("got %v, want a refusal naming %s", err, p)
		}
		// As the message says, removing it rebuilds the session from its log.
		os.Remove(p)
		s := newTestServer(t, dir)
		defer s.Close()
		if h, err := s.Get(context.Background(), &hyperctlv1.GetSessionRequest{SessionId: "s"}); err != nil || h.Session.Iteration != 6 {
			t.Fatalf("rebuilt from the log: %v %v", h, err)
		}
	})
	t.Run("unknown format version quarantines the session", func(t *testing.T) {
		dir, sdir := prepare(t)
		p := filepath.Join(sdir, logName)
		b, _ := os.ReadFile(p)
		b[4] = 9
		os.WriteFile(p, b, fileMode)
		err, _ := openErr(dir)
		if err == nil || !strings.Contains(err.Error(), "format version 9") || !strings.Contains(err.Error(), p) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestStateFolderLockAndModes(t *testing.T) {
	dir := t.TempDir()
	s := newTestServer(t, dir)
	if _, err := New(Options{StateDir: dir, Log: zerolog.Nop()}); err == nil || !strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), "state folder") {
		t.Fatalf("second server on the same state: %v", err)
	}
	if _, _, err := s.Create(context.Background(), &hyperctlv1.CreateSessionRequest{SessionId: "m", Space: twoParams()}); err != nil {
		t.Fatal(err)
	}
	driveDirect(t, s, "m", 0, 8, rand.New(rand.NewPCG(5, 6)))
	s.Close()
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(fileMode)
		if fi.IsDir() {
			want = dirMode
			if p == dir {
				return nil
			}
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Released on Close.
	s2 := newTestServer(t, dir)
	s2.Close()
}

func TestDelete(t *testing.T) {
	dir := t.TempDir()
	s := newTestServer(t, dir)
	ctx := context.Background()
	s.Create(ctx, &hyperctlv1.CreateSessionRequest{SessionId: "d", Space: twoParams()})
	driveDirect(t, s, "d", 0, 3, rand.New(rand.NewPCG(1, 1)))
	if err := s.Delete(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Suggest(ctx, "d", nil); !errors.As(err, new(errNotFound)) {
		t.Fatalf("suggest after delete: %v", err)
	}
	if err := s.Delete(ctx, "d"); !errors.As(err, new(errNotFound)) {
		t.Fatalf("second delete: %v", err)
	}
	s.Close()
	ents, _ := os.ReadDir(filepath.Join(dir, sessionsDir))
	if len(ents) != 0 {
		t.Fatalf("left in sessions/: %v", ents)
	}
}

// client starts an HTTP server for s and returns a Connect client.
func client(t testing.TB, s *Server, o HandlerOptions, copts ...connect.ClientOption) hyperctlv1connect.ControllerServiceClient {
	t.Helper()
	hs := httptest.NewServer(s.Handler(o))
	t.Cleanup(hs.Close)
	return hyperctlv1connect.NewControllerServiceClient(hs.Client(), hs.URL, copts...)
}

func codeOf(err error) connect.Code { return connect.CodeOf(err) }

func TestRPCErrorsAndAuth(t *testing.T) {
	s := newTestServer(t, "")
	defer s.Close()
	const tok = "0123456789abcdef-token"
	c := client(t, s, HandlerOptions{Token: tok, MaxBody: 4096})
	ctx := context.Background()
	call := func(token string) error {
		req := connect.NewRequest(&hyperctlv1.HealthRequest{})
		if token != "" {
			req.Header().Set("Authorization", "Bearer "+token)
		}
		_, err := c.Health(ctx, req)
		return err
	}
	if err := call(""); codeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("no token: %v", err)
	}
	if err := call(tok + "x"); codeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("wrong token: %v", err)
	}
	if err := call(tok); err != nil {
		t.Fatal(err)
	}
	auth := func(r interface{ Header() http.Header }) { r.Header().Set("Authorization", "Bearer "+tok) }

	cr := connect.NewRequest(&hyperctlv1.CreateSessionRequest{Space: twoParams(), Method: "nope"})
	auth(cr)
	if _, err := c.CreateSession(ctx, cr); codeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "method: unknown controller") {
		t.Fatalf("unknown method: %v", err)
	}
	big := connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: "x", Returns: make([]float64, 2000)})
	auth(big)
	if _, err := c.Observe(ctx, big); codeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("body over the limit: %v", err)
	}
	sg := connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "missing"})
	auth(sg)
	if _, err := c.Suggest(ctx, sg); codeOf(err) != connect.CodeNotFound {
		t.Fatalf("missing session: %v", err)
	}
}

func TestJSONOverHTTP1(t *testing.T) {
	s := newTestServer(t, "")
	defer s.Close()
	hs := httptest.NewServer(s.Handler(HandlerOptions{}))
	defer hs.Close()
	post := func(method, body string) (int, string) {
		resp, err := http.Post(hs.URL+"/hyperctl.v1.ControllerService/"+method, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var raw, b bytes.Buffer
		raw.ReadFrom(resp.Body)
		// protojson varies its whitespace on purpose; compare compacted.
		if err := json.Compact(&b, raw.Bytes()); err != nil {
			t.Fatalf("%s: not JSON: %s", method, raw.String())
		}
		return resp.StatusCode, b.String()
	}
	cases := []struct {
		method, body string
		status       int
		substr       string
	}{
		{"CreateSession", `{"sessionId":"j","space":[{"name":"lr","low":0.0001,"high":0.01,"scale":"log"}],"settings":{"d":4}}`, 200, `"settings":{"bonus":0,"d":4`},
		{"CreateSession", `{"sessionId":"k","spce":[]}`, 400, `unknown field \"spce\"; allowed: sessionId, space (name, low, high, scale, integer), method`},
		{"CreateSession", `{"space":[{"name":"lr","lo":1}]}`, 400, `unknown field \"lo\"`},
		{"CreateSession", `not json`, 400, `invalid_argument`},
		{"Suggest", `{"sessionId":"j"}`, 200, `"iteration":0,"config":{"lr":`},
		{"Observe", `{"sessionId":"j","iteration":0,"reward":"NaN"}`, 400, `reward: NaN is not a finite number`},
		{"Observe", `{"sessionId":"j","iteration":0,"reward":"high"}`, 400, `reward`},
		{"Observe", `{"sessionId":"j","iteration":"zero","reward":1}`, 400, `iteration`},
		{"Observe", `{"sessionId":"j","iteration":0,"reward":1}`, 200, `"duplicate":false,"nextIteration":1`},
		{"Observe", `{"sessionId":"j","iteration":0,"reward":1}`, 200, `"duplicate":true`},
		{"Health", `{}`, 200, `"status":"SERVING"`},
	}
	for _, tc := range cases {
		code, body := post(tc.method, tc.body)
		if code != tc.status || !strings.Contains(body, tc.substr) {
			t.Errorf("%s %s: %d %s; want %d and %q", tc.method, tc.body, code, body, tc.status, tc.substr)
		}
	}
}

// panicky is a test-only method that panics on Suggest when told to.
type panicky struct {
	Explode bool `toml:"explode"`
}

func (p *panicky) Validate() error                             { return nil }
func (p *panicky) New() (controller.Method, error)             { return &panicMethod{explode: p.Explode}, nil }
func (m *panicMethod) Init(controller.Space, *rand.Rand) error { return nil }
func (m *panicMethod) Suggest(dst controller.Config) error {
	if m.explode {
		var nilMap map[string]int
		nilMap["boom"] = 1
	}
	for i := range dst {
		dst[i] = 0.2
	}
	return nil
}
func (m *panicMethod) Observe(controller.Observation) error { return nil }
func (m *panicMethod) MarshalBinary() ([]byte, error)       { return []byte{1}, nil }
func (m *panicMethod) UnmarshalBinary([]byte) error         { return nil }

type panicMethod struct{ explode bool }

func init() {
	controller.MustRegister(controller.Entry{Name: "paniccontroller-test", Summary: "test only", Defaults: func() controller.Settings { return &panicky{} }})
}

func TestPanicIsRecovered(t *testing.T) {
	var logs syncBuffer
	s := newTestServer(t, "", func(o *Options) { o.Log = zerolog.New(&logs) })
	defer s.Close()
	c := client(t, s, HandlerOptions{})
	ctx := context.Background()
	_, err := c.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{SessionId: "p", Space: []*hyperctlv1.Param{{Name: "x", Low: 0, High: 1}}, Method: "paniccontroller-test", Settings: mustStruct(t, map[string]any{"explode": true})}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "p"}))
	if codeOf(err) != connect.CodeInternal || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("panic: %v", err)
	}
	if !strings.Contains(logs.String(), "assignment to entry in nil map") {
		t.Fatalf("panic not logged: %s", logs.String())
	}
	// The server and the session still answer.
	if _, err := c.Health(ctx, connect.NewRequest(&hyperctlv1.HealthRequest{})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetSession(ctx, connect.NewRequest(&hyperctlv1.GetSessionRequest{SessionId: "p"})); err != nil {
		t.Fatal(err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestCheckListenAndToken(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		addr  string
		token bool
		ok    bool
	}{
		{"127.0.0.1:0", false, true},
		{"[::1]:0", false, true},
		{"localhost:0", false, true},
		{"0.0.0.0:8080", false, false},
		{":8080", false, false},
		{"192.168.1.5:8080", false, false},
		{"0.0.0.0:8080", true, true},
		{"nocolon", false, false},
	} {
		err := CheckListen(ctx, tc.addr, tc.token, ServeExposes)
		if (err == nil) != tc.ok {
			t.Errorf("CheckListen(%q, token %v) = %v", tc.addr, tc.token, err)
		}
	}
	if err := CheckListen(ctx, "0.0.0.0:8080", false, ServeExposes); err == nil || !strings.Contains(err.Error(), "anyone who can reach it could drive your sessions") {
		t.Errorf("serve's refusal: %v", err)
	}
	// A busy port: the error says to give another address.
	busy, lerr := net.Listen("tcp", "127.0.0.1:0")
	if lerr != nil {
		t.Fatal(lerr)
	}
	defer busy.Close()
	if ln, err := Listen(busy.Addr().String()); err == nil || !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), "give RunConfig.Listen another address") {
		if ln != nil {
			ln.Close()
		}
		t.Errorf("Listen on a busy port: %v", err)
	}
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	if _, err := ReadToken(short); err == nil {
		t.Fatal("a 3-character token was accepted")
	}
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("  0123456789abcdefXYZ\n"), 0o600)
	if tok, err := ReadToken(good); err != nil || tok != "0123456789abcdefXYZ" {
		t.Fatal(tok, err)
	}
	// Run refuses a non-loopback bind without a token before touching the state.
	st := filepath.Join(dir, "state")
	err := Run(ctx, RunConfig{Listen: "0.0.0.0:0", StateDir: st, Log: zerolog.Nop()})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not a loopback address") {
		t.Fatalf("Run on 0.0.0.0 without a token: %v", err)
	}
	if _, err := os.Stat(st); err == nil {
		t.Fatal("the state folder was created for a refused configuration")
	}
}

// TestConfigWords: the refusals of a configuration name RunConfig's
// fields in Go and, in a command line's words (words.Say), its flags.
func TestConfigWords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	second := func(_ any, err error) error { return err }
	flags := words.Words{Listen: "--listen", TokenFile: "--token-file", AddrFile: "--addr-file"}
	for _, tc := range []struct {
		name         string
		err          error
		goText, flag string
	}{
		{"not host:port", CheckListen(ctx, "nocolon", false, ServeExposes),
			`RunConfig.Listen "nocolon": address nocolon: missing port in address (want host:port`, `--listen "nocolon": address nocolon`},
		{"not loopback", CheckListen(ctx, "0.0.0.0:8080", false, ServeExposes),
			`RunConfig.Listen "0.0.0.0:8080" is not a loopback address: anyone who can reach it could drive your sessions; give RunConfig.TokenFile to require a token`,
			`--listen "0.0.0.0:8080" is not a loopback address: anyone who can reach it could drive your sessions; give --token-file to require a token`},
		{"no token file", second(ReadToken(filepath.Join(dir, "none"))), "RunConfig.TokenFile: stat ", "--token-file: stat "},
		{"short token", second(ReadToken(short)), "RunConfig.TokenFile " + short + ": want one token", "--token-file " + short + ": want one token"},
		{"busy port", second(Listen(busy.Addr().String())), "another process uses this port: give RunConfig.Listen another address",
			"another process uses this port: give --listen another address"},
		{"address file", Run(ctx, RunConfig{Listen: "127.0.0.1:0", StateDir: filepath.Join(dir, "state"), AddrFile: filepath.Join(dir, "no", "such", "addr"), MaxSessions: 1, Log: zerolog.Nop()}),
			"RunConfig.AddrFile: ", "--addr-file: "},
		// hyperctl serve refuses a duration <= 0 by its flag before Run.
		{"negative timeout", Run(ctx, RunConfig{Listen: "127.0.0.1:0", StateDir: filepath.Join(dir, "state2"), IdleTimeout: -time.Second, Log: zerolog.Nop()}),
			"RunConfig.IdleTimeout: want a duration > 0 (0: the default), got -1s", "RunConfig.IdleTimeout: want a duration > 0"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if got := tc.err.Error(); !strings.Contains(got, tc.goText) || strings.Contains(got, "--") {
			t.Errorf("%s: %q, want %q and no flag", tc.name, got, tc.goText)
		}
		if got := words.Say(fmt.Errorf("serve: %w", tc.err), flags); !strings.Contains(got, tc.flag) {
			t.Errorf("%s: in flags %q, want %q", tc.name, got, tc.flag)
		}
	}
}

// TestConcurrentSessions drives sessions from many goroutines with
// concurrent reads, for the race detector; every session's history must
// come out complete and in order.
func TestConcurrentSessions(t *testing.T) {
	s := newTestServer(t, "", func(o *Options) { o.SnapshotEvery = 5 })
	c := client(t, s, HandlerOptions{})
	ctx := context.Background()
	const sessions, rounds = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, sessions+1)
	for i := 0; i < sessions; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := "c" + strconv.Itoa(i)
			method := []string{"hypercontroller", "random"}[i%2]
			if _, err := c.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{SessionId: id, Space: twoParams(), Method: method, Seed: int64(i)})); err != nil {
				errs <- err
				return
			}
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			for it := 0; it < rounds; it++ {
				sg, err := c.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: id}))
				if err != nil {
					errs <- err
					return
				}
				or := &hyperctlv1.ObserveRequest{SessionId: id, Iteration: int32(it), Reward: reward(it, sg.Msg.Values, rng)}
				for k := 0; k < 1+it%2; k++ { // every other one is retried
					if _, err := c.Observe(ctx, connect.NewRequest(or)); err != nil {
						errs <- err
						return
					}
				}
			}
		}(i)
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := c.ListSessions(ctx, connect.NewRequest(&hyperctlv1.ListSessionsRequest{})); err != nil {
				errs <- err
				return
			}
			c.GetSession(ctx, connect.NewRequest(&hyperctlv1.GetSessionRequest{SessionId: "c0", History: true}))
			time.Sleep(time.Millisecond)
		}
	}()
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := 0; i < sessions; i++ {
		h, err := s.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: "c" + strconv.Itoa(i), History: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.History) != rounds {
			t.Fatalf("session %d: %d observations, want %d", i, len(h.History), rounds)
		}
		for k, o := range h.History {
			if int(o.Iteration) != k {
				t.Fatalf("session %d: history[%d] is iteration %d", i, k, o.Iteration)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestObserveNextEqualsSuggest checks ObserveResponse.next: it is what a
// separate Suggest returns, for a fresh reply, for a retried duplicate and
// after a kill -9 restart; and a client that only follows next (one RPC
// per round) gets the uninterrupted two-RPC sequence and final state.
func TestObserveNextEqualsSuggest(t *testing.T) {
	ctx := context.Background()
	for _, method := range []string{"hypercontroller", "gpucb", "random"} {
		t.Run(method, func(t *testing.T) {
			req := &hyperctlv1.CreateSessionRequest{SessionId: "s", Space: twoParams(), Method: method, Interval: 3, Seed: 5}
			ref := newTestServer(t, "")
			if _, _, err := ref.Create(ctx, req); err != nil {
				t.Fatal(err)
			}
			const n = 25
			want := driveDirect(t, ref, "s", 0, n, rand.New(rand.NewPCG(3, 4)))
			wantSnap, _ := ref.SessionSnapshot("s")
			ref.Close()

			dir := t.TempDir()
			s := newTestServer(t, dir)
			if _, _, err := s.Create(ctx, req); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			sg, err := s.Suggest(ctx, "s", nil)
			if err != nil {
				t.Fatal(err)
			}
			for it := 0; it < n; it++ {
				if int(sg.GetIteration()) != it || !slices.Equal(sg.GetValues(), want[it]) {
					t.Fatalf("iteration %d: following next gave %v for iteration %d, the two-RPC run %v", it, sg.GetValues(), sg.GetIteration(), want[it])
				}
				obs := &hyperctlv1.ObserveRequest{SessionId: "s", Iteration: int32(it), Reward: reward(it, sg.GetValues(), rng), Frames: 64, ElapsedSeconds: 0.01}
				resp, err := s.Observe(ctx, obs)
				if err != nil {
					t.Fatal(err)
				}
				next := resp.GetNext()
				if next == nil || next.GetIteration() != resp.GetNextIteration() || int(next.GetIteration()) != it+1 {
					t.Fatalf("iteration %d: next %v, next_iteration %d", it, next, resp.GetNextIteration())
				}
				switch it % 4 {
				case 0: // a separate Suggest returns the same
					sep, err := s.Suggest(ctx, "s", nil)
					if err != nil {
						t.Fatal(err)
					}
					if !proto.Equal(sep, next) {
						t.Fatalf("iteration %d: Observe's next %v, Suggest %v", it, next, sep)
					}
				case 1: // a retried observe is a duplicate with the same next
					dup, err := s.Observe(ctx, obs)
					if err != nil {
						t.Fatal(err)
					}
					if !dup.GetDuplicate() || !proto.Equal(dup.GetNext(), next) {
						t.Fatalf("iteration %d: retry gave duplicate=%v next %v, first reply next %v", it, dup.GetDuplicate(), dup.GetNext(), next)
					}
				case 2: // kill -9 and restart: Suggest and a retry agree with next
					crash(s)
					s = newTestServer(t, dir)
					sep, err := s.Suggest(ctx, "s", nil)
					if err != nil {
						t.Fatal(err)
					}
					if !proto.Equal(sep, next) {
						t.Fatalf("iteration %d: next before the crash %v, Suggest after the restart %v", it, next, sep)
					}
					dup, err := s.Observe(ctx, obs)
					if err != nil {
						t.Fatal(err)
					}
					if !dup.GetDuplicate() || !proto.Equal(dup.GetNext(), next) {
						t.Fatalf("iteration %d: retry after the restart gave duplicate=%v next %v, want %v", it, dup.GetDuplicate(), dup.GetNext(), next)
					}
				}
				sg = next
			}
			defer s.Close()
			if snap, _ := s.SessionSnapshot("s"); !bytes.Equal(snap, wantSnap) {
				t.Fatal("final snapshot differs from the two-RPC run's")
			}
		})
	}
}
