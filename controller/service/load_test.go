package service

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/controller"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
)

var loadOut = flag.String("load.out", "", "BenchmarkServeLoad: append one Markdown table row per run to this file")

// loadCase is one configuration of the load benchmark.
type loadCase struct {
	method   string
	sessions int
	rounds   int
	sync     bool
	json     bool
	// next: a round is one Observe whose reply carries the next
	// suggestion (ObserveResponse.next); only the first round also sends a
	// Suggest. Otherwise a round is Suggest then Observe.
	next bool
}

func (c loadCase) name() string {
	codec := "proto"
	if c.json {
		codec = "json"
	}
	fs := "on"
	if !c.sync {
		fs = "off"
	}
	return fmt.Sprintf("method=%s/sessions=%d/rounds=%d/fsync=%s/codec=%s/round=%s", c.method, c.sessions, c.rounds, fs, codec, c.round())
}

// round names how a round is sent.
func (c loadCase) round() string {
	if c.next {
		return "observe+next"
	}
	return "suggest+observe"
}

// BenchmarkServeLoad drives sessions concurrently over loopback HTTP, each
// for `rounds` Suggest+Observe rounds, and reports the round-trip latency
// of a round (p50, p99) and the rounds per second. It then replays every
// session in-process through the Go driver (controller.Build with the
// method's defaults, the recorded rewards) and fails unless each replay
// suggested the same configurations and ends with a byte-identical
// snapshot; and it restarts the server from its state folder and checks the
// snapshots again. fsync=off is UnsafeNoSync, to measure what durability
// costs; `hyperctl serve` always makes each observation durable (fdatasync
// into the preallocated log) before acknowledging it. Run it once per case:
//
//	go test -run '^$' -bench BenchmarkServeLoad -benchtime 1x ./controller/service
func BenchmarkServeLoad(b *testing.B) {
	var cases []loadCase
	for _, sync := range []bool{true, false} {
		cases = append(cases,
			loadCase{method: "hypercontroller", sessions: 1, rounds: 1000, sync: sync},
			loadCase{method: "hypercontroller", sessions: 64, rounds: 1000, sync: sync},
			loadCase{method: "gpucb", sessions: 1, rounds: 1000, sync: sync},
			loadCase{method: "gpucb", sessions: 64, rounds: 1000, sync: sync},
		)
	}
	cases = append(cases, loadCase{method: "hypercontroller", sessions: 1, rounds: 1000, sync: false, json: true})
	for _, sync := range []bool{true, false} {
		cases = append(cases,
			loadCase{method: "hypercontroller", sessions: 1, rounds: 1000, sync: sync, next: true},
			loadCase{method: "hypercontroller", sessions: 64, rounds: 1000, sync: sync, next: true},
			loadCase{method: "gpucb", sessions: 1, rounds: 1000, sync: sync, next: true},
			loadCase{method: "gpucb", sessions: 64, rounds: 1000, sync: sync, next: true},
		)
	}
	for _, c := range cases {
		b.Run(c.name(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				runLoad(b, c)
			}
		})
	}
}

// sessionTrace is what one load client sent and received.
type sessionTrace struct {
	id      string
	seed    uint64
	configs [][]float64
	rewards []float64
	next    []float64 // the last Observe's next suggestion
}

const (
	loadInterval = 5
	loadFrames   = 2048
	loadElapsed  = 0.01
)

func runLoad(b *testing.B, c loadCase) {
	dir := b.TempDir()
	loadAvg := "?"
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		loadAvg = strings.Fields(string(la))[0]
	}
	srv, err := New(Options{StateDir: dir, Log: zerolog.Nop(), UnsafeNoSync: !c.sync, MaxSessions: c.sessions})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler(HandlerOptions{})}
	go hs.Serve(ln)
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 2 * c.sessions, DisableCompression: true}
	defer tr.CloseIdleConnections()
	var copts []connect.ClientOption
	if c.json {
		copts = append(copts, connect.WithProtoJSON())
	}
	client := hyperctlv1connect.NewControllerServiceClient(&http.Client{Transport: tr}, "http://"+ln.Addr().String(), copts...)
	ctx := context.Background()

	traces := make([]*sessionTrace, c.sessions)
	lat := make([][]time.Duration, c.sessions)
	errs := make(chan error, c.sessions)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < c.sessions; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			tr := &sessionTrace{id: fmt.Sprintf("load-%d", i), seed: uint64(i)}
			traces[i] = tr
			_, err := client.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{
				SessionId: tr.id, Space: twoParams(), Method: c.method, Interval: loadInterval, Seed: int64(tr.seed)}))
			if err != nil {
				errs <- err
				return
			}
			rng := rand.New(rand.NewPCG(tr.seed, 77))
			l := make([]time.Duration, 0, c.rounds)
			var next *hyperctlv1.SuggestResponse
			for it := 0; it < c.rounds; it++ {
				t0 := time.Now()
				sg := next
				if sg == nil || !c.next {
					resp, err := client.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: tr.id}))
					if err != nil {
						errs <- err
						return
					}
					sg = resp.Msg
				}
				if int(sg.Iteration) != it {
					errs <- fmt.Errorf("session %s: suggestion for iteration %d, want %d", tr.id, sg.Iteration, it)
					return
				}
				r := reward(it, sg.Values, rng)
				ob, err := client.Observe(ctx, connect.NewRequest(&hyperctlv1.ObserveRequest{
					SessionId: tr.id, Iteration: int32(it), Reward: r, Frames: loadFrames, ElapsedSeconds: loadElapsed}))
				if err != nil {
					errs <- err
					return
				}
				l = append(l, time.Since(t0))
				next = ob.Msg.Next
				if next == nil {
					errs <- fmt.Errorf("session %s, iteration %d: Observe returned no next suggestion", tr.id, it)
					return
				}
				tr.configs = append(tr.configs, sg.Values)
				tr.rewards = append(tr.rewards, r)
			}
			tr.next = next.GetValues()
			lat[i] = l
		}(i)
	}
	wg.Wait()
	wall := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration { return all[int(p*float64(len(all)-1))] }
	rps := float64(len(all)) / wall.Seconds()
	b.ReportMetric(float64(pct(0.50).Microseconds()), "p50-µs/round")
	b.ReportMetric(float64(pct(0.99).Microseconds()), "p99-µs/round")
	b.ReportMetric(rps, "rounds/s")

	// Replay in-process and compare; then restart from disk and compare.
	snaps := map[string][]byte{}
	for _, tr := range traces {
		got, err := srv.SessionSnapshot(tr.id)
		if err != nil {
			b.Fatal(err)
		}
		want := replayTrace(b, c.method, tr)
		if !bytes.Equal(got, want) {
			b.Fatalf("session %s: the server's final snapshot differs from the in-process replay's", tr.id)
		}
		snaps[tr.id] = got
	}
	hs.Close()
	if err := srv.Close(); err != nil {
		b.Fatal(err)
	}
	again, err := New(Options{StateDir: dir, Log: zerolog.Nop()})
	if err != nil {
		b.Fatal(err)
	}
	for id, want := range snaps {
		got, err := again.SessionSnapshot(id)
		if err != nil || !bytes.Equal(got, want) {
			b.Fatalf("session %s after a restart from disk: snapshot differs (%v)", id, err)
		}
	}
	again.Close()
	b.Logf("%s: %d rounds in %.2f s: p50 %v, p99 %v, %.0f rounds/s; %d sessions replayed in-process and restarted from disk: identical snapshots",
		c.name(), len(all), wall.Seconds(), pct(0.5), pct(0.99), rps, len(traces))
	if *loadOut != "" {
		f, err := os.OpenFile(*loadOut, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		fs := "on"
		if !c.sync {
			fs = "off (benchmark only)"
		}
		codec := "Connect, binary protobuf"
		if c.json {
			codec = "Connect, JSON"
		}
		fmt.Fprintf(f, "| %s | %s | %d | %d | %s | %s | %d | %d | %.0f | %.1f | %d/%d identical | %s |\n",
			c.round(), c.method, c.sessions, c.rounds, fs, codec, pct(0.5).Microseconds(), pct(0.99).Microseconds(), rps, wall.Seconds(), len(traces), len(traces), loadAvg)
		f.Close()
	}
	runtime.GC()
}

// replayTrace runs one session's recorded rewards through an in-process
// driver built directly with controller.Build (the method's defaults, as a
// Go program embedding it would), checks every suggestion against what the
// server returned, and returns the final snapshot.
func replayTrace(b *testing.B, method string, tr *sessionTrace) []byte {
	space, err := controller.NewSpace(
		controller.Param{Name: "lr", Low: 1e-5, High: 1e-3, Scale: controller.Log},
		controller.Param{Name: "clip", Low: 0.1, High: 0.5},
	)
	if err != nil {
		b.Fatal(err)
	}
	ctl, err := controller.Build(method, nil, space, controller.Options{Interval: loadInterval, Seed: tr.seed})
	if err != nil {
		b.Fatal(err)
	}
	for it, r := range tr.rewards {
		cfg, err := ctl.Suggest()
		if err != nil {
			b.Fatal(err)
		}
		if !slices.Equal([]float64(cfg), tr.configs[it]) {
			b.Fatalf("session %s, iteration %d: the server suggested %v, the in-process driver %v", tr.id, it, tr.configs[it], []float64(cfg))
		}
		if err := ctl.Observe(controller.Result{Reward: r, Frames: loadFrames, Elapsed: time.Duration(loadElapsed * 1e9)}); err != nil {
			b.Fatal(err)
		}
	}
	// Every Observe computed the session's next suggestion (its reply's
	// next field, used or not): the driver does the same before its
	// snapshot is compared, and must agree with it.
	cfg, err := ctl.Suggest()
	if err != nil {
		b.Fatal(err)
	}
	if !slices.Equal([]float64(cfg), tr.next) {
		b.Fatalf("session %s: the last Observe's next suggestion was %v, the in-process driver suggests %v", tr.id, tr.next, []float64(cfg))
	}
	snap, err := ctl.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	return snap
}
