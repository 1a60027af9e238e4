package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	_ "github.com/hyperctl/hyperctl/baselines/random" // the sessions' and the running run's controller
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller/service"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// get requests path from the handler h, as a browser on loopback would.
func get(t *testing.T, h http.Handler, path string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest("GET", "http://127.0.0.1:8422"+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Result(), string(b)
}

// writeRun writes a run folder the way training does, through rundir's
// writers: config.toml, rows train.csv rows (no finished episode in odd
// ones), an evaluation every second row, and summary.json when finished.
func writeRun(t *testing.T, dir, env, ctrl string, seed, rows int, finished bool) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "env = \"" + env + "\"\nseed = " + itoa(seed) + "\niterations = 20\nframes = 4000\n\n[controller]\nname = \"" + ctrl + "\"\n"
	if err := os.WriteFile(filepath.Join(dir, rundir.ConfigFile), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	appendRows(t, dir, 0, rows)
	if finished {
		if err := rundir.WriteSummary(dir, rundir.Summary{Env: env, Controller: ctrl, Iterations: rows, Frames: int64(200 * rows)}); err != nil {
			t.Fatal(err)
		}
	}
}

// appendRows appends rows [from, to) to a run's logs.
func appendRows(t *testing.T, dir string, from, to int) {
	t.Helper()
	tl, err := rundir.OpenTrainLog(dir, []string{"batch_size", "lr"}, from)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	el, err := rundir.OpenEvalLog(dir, from)
	if err != nil {
		t.Fatal(err)
	}
	defer el.Close()
	for i := from; i < to; i++ {
		r := rundir.TrainRow{Iteration: i, Frames: int64(200 * (i + 1)), TrainReward: float64(i) / 10, Objective: 0.1, HaveObjective: i > 0,
			Hyper: []any{200 + i, 1e-4 * float64(i+1)}}
		if i%2 == 0 {
			r.Episodes, r.MeanReturn = 2, float64(i)
		}
		if err := tl.Append(r); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if err := el.Append(rundir.EvalRow{Iteration: i, Frames: int64(200 * (i + 1)), Return: float64(-i), Steps: 50, Episodes: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestAssets: the page, its script and the vendored uPlot (the version
// recorded in assets/uplot/VERSION.md, its license beside it) are served
// from the binary; other methods and foreign hosts are refused.
func TestAssets(t *testing.T) {
	src, err := NewRuns(t.TempDir(), RunsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := Handler(src, Options{})
	for _, c := range []struct{ path, want string }{
		{"/", `<script src="assets/uplot/uPlot.iife.min.js">`},
		{"/assets/app.js", "new uPlot(opts, data, plot)"},
		{"/assets/uplot/uPlot.iife.min.js", "(v1.6.32)"},
		{"/assets/uplot/uPlot.min.css", ".uplot"},
		{"/assets/uplot/LICENSE", "The MIT License (MIT)\n\nCopyright (c) 2022 Leon Sorokin"},
		{"/assets/uplot/VERSION.md", "# uPlot 1.6.32 (vendored)"},
	} {
		resp, body := get(t, h, c.path)
		if resp.StatusCode != 200 || !strings.Contains(body, c.want) {
			t.Errorf("GET %s: %d, want 200 with %q", c.path, resp.StatusCode, c.want)
		}
	}
	req := httptest.NewRequest("POST", "http://127.0.0.1:8422/api/overview", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusMethodNotAllowed || !strings.Contains(w.Body.String(), "method POST: the dashboard is read-only") {
		t.Errorf("POST: %d %q", w.Code, w.Body.String())
	}
	req = httptest.NewRequest("GET", "http://rebound.example:8422/api/overview", nil)
	w = httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), `Host "rebound.example:8422"`) {
		t.Errorf("a foreign Host without a token: %d %q", w.Code, w.Body.String())
	}
}

// TestRuns: every kind of folder is found and listed with the state
// `hyperctl status` gives it; the series endpoint returns rows from an
// offset, follows appended rows, and refuses bad requests naming the field.
func TestRuns(t *testing.T) {
	root := t.TempDir()
	// A compare: reacher × {a, b} × seeds {0, 1}; a/seed0 finished,
	// a/seed1 written by a process now, the b runs not started.
	man := matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"a", "b"}, Seeds: []int64{0, 1}, Iterations: 20, Frames: 4000}
	b, _ := json.Marshal(man)
	os.MkdirAll(filepath.Join(root, "cmp"), 0o755)
	os.WriteFile(filepath.Join(root, "cmp", matrix.ManifestFile), b, 0o644)
	writeRun(t, filepath.Join(root, "cmp/reacher/a/seed0"), "reacher", "a", 0, 6, true)
	running := filepath.Join(root, "cmp/reacher/a/seed1")
	writeRun(t, running, "reacher", "a", 1, 3, false)
	lock, err := rundir.Acquire(running)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	// A run in compare's layout without compare.json, stopped: its folder
	// names the preset.
	writeRun(t, filepath.Join(root, "lone/pusher/hypercontroller@rl/seed2"), "pusher", "hypercontroller", 2, 2, false)
	// train's default folder name names the preset too, as report reads it.
	writeRun(t, filepath.Join(root, "train/reacher-hypercontroller@rl-seed3"), "reacher", "hypercontroller", 3, 1, true)
	// A folder of run folders with a log of its own (a population).
	writeRun(t, filepath.Join(root, "pop/member-0"), "pusher", "fixed", 0, 4, true)
	os.WriteFile(filepath.Join(root, "pop", "population.csv"), []byte("generation\n"), 0o644)
	// A train.csv whose config is not there.
	os.MkdirAll(filepath.Join(root, "broken"), 0o755)
	os.WriteFile(filepath.Join(root, "broken", rundir.TrainCSV), []byte("iteration,frames\n0,10\n"), 0o644)

	src, err := NewRuns(root, RunsOptions{Poll: 1}) // 1 ns: every overview scans again
	if err != nil {
		t.Fatal(err)
	}
	ov, err := src.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Run{}
	for _, r := range ov.Runs {
		got[r.ID] = r
	}
	want := []struct {
		id, env, label, coll, state, detail string
		done                                int
		frames                              int64
	}{
		{"cmp/reacher/a/seed0", "reacher", "a", "cmp", "finished", "", 6, 1200},
		{"cmp/reacher/a/seed1", "reacher", "a", "cmp", "running", "writes it", 3, 600},
		{"cmp/reacher/b/seed0", "reacher", "b", "cmp", "missing", "not started", 0, 0},
		{"cmp/reacher/b/seed1", "reacher", "b", "cmp", "missing", "not started", 0, 0},
		{"lone/pusher/hypercontroller@rl/seed2", "pusher", "hypercontroller@rl", "lone", "stopped", "unfinished and not queued", 2, 400},
		{"train/reacher-hypercontroller@rl-seed3", "reacher", "hypercontroller@rl", "train", "finished", "", 1, 200},
		{"pop/member-0", "pusher", "fixed", "pop", "finished", "", 4, 800},
		{"broken", "", "broken", "", "stopped", "", 1, 10},
	}
	if len(ov.Runs) != len(want) {
		t.Errorf("%d runs, want %d: %+v", len(ov.Runs), len(want), ov.Runs)
	}
	for _, w := range want {
		r, ok := got[w.id]
		if !ok || r.Env != w.env || r.Label != w.label || r.Collection != w.coll || r.State != w.state || !strings.Contains(r.Detail, w.detail) || r.Done != w.done || r.Frames != w.frames {
			t.Errorf("run %s: %+v; want %+v", w.id, r, w)
		}
	}
	if r := got["cmp/reacher/a/seed1"]; r.Budget != 4000 || r.Iterations != 20 || r.Seed == nil || *r.Seed != 1 {
		t.Errorf("the running run's budget, length and seed: %+v", r)
	}
	if len(ov.Matrices) != 1 || ov.Matrices[0].ID != "cmp" || strings.Join(ov.Matrices[0].Runs, " ") != "cmp/reacher/a/seed0 cmp/reacher/a/seed1 cmp/reacher/b/seed0 cmp/reacher/b/seed1" {
		t.Errorf("matrices %+v", ov.Matrices)
	}
	if len(ov.Problems) != 1 || !strings.Contains(ov.Problems[0], filepath.Join(root, "broken")) {
		t.Errorf("problems %q; want the folder without config.toml", ov.Problems)
	}

	h := Handler(src, Options{})
	series := func(q string) (int, Series, string) {
		t.Helper()
		resp, body := get(t, h, "/api/series?"+q)
		var s Series
		if resp.StatusCode == 200 {
			if err := json.Unmarshal([]byte(body), &s); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
		}
		return resp.StatusCode, s, body
	}
	code, s, body := series("id=cmp/reacher/a/seed0&from=4&eval_from=1")
	if code != 200 || s.Rows != 6 || s.EvalRows != 3 || s.From != 4 || len(s.Train["frames"]) != 2 || s.Train["frames"][0] != 1000 ||
		strings.Join(s.Hyper, ",") != "batch_size,lr" || s.Train["batch_size"][1] != 205 || len(s.Eval["eval_return"]) != 2 || s.Eval["eval_return"][0] != -3 {
		t.Fatalf("series from 4: %d %+v", code, s)
	}
	// Row 5 had no finished episode: its mean return is null.
	if !strings.Contains(body, `"mean_episode_return":[4,null]`) {
		t.Errorf("empty fields: %s", body)
	}
	// Rows appended while the page looks: the overview's stamp changes
	// and the series has them.
	_, s, _ = series("id=cmp/reacher/a/seed1")
	if s.Rows != 3 || math.IsNaN(s.Train["train_reward"][2]) {
		t.Fatalf("running run: %+v", s)
	}
	stamp := got["cmp/reacher/a/seed1"].Stamp
	appendRows(t, running, 3, 5)
	ov, _ = src.Overview(context.Background())
	for _, r := range ov.Runs {
		if r.ID == "cmp/reacher/a/seed1" && (r.Stamp == stamp || r.Done != 5) {
			t.Errorf("after 2 more rows: stamp %q (was %q), %d done", r.Stamp, stamp, r.Done)
		}
	}
	if _, s, _ = series("id=cmp/reacher/a/seed1&from=3"); s.Rows != 5 || len(s.Train["iteration"]) != 2 || s.Train["iteration"][1] != 4 {
		t.Errorf("appended rows: %+v", s)
	}
	// A run not started has no rows; bad requests name the field.
	if code, s, _ := series("id=cmp/reacher/b/seed0"); code != 200 || s.Rows != 0 || len(s.Train) != 0 {
		t.Errorf("a run not started: %d %+v", code, s)
	}
	for _, c := range []struct {
		q    string
		code int
		msg  string
	}{
		{"from=2", 400, `id: missing`},
		{"id=nope", 404, `id: no run \"nope\" under`},
		{"id=../../etc", 404, `id: no run \"../../etc\"`},
		{"id=broken&from=-1", 400, `from: want a row index >= 0, got \"-1\"`},
		{"id=broken&eval_from=x", 400, `eval_from: want a row index >= 0, got \"x\"`},
	} {
		code, _, body := series(c.q)
		if code != c.code || !strings.Contains(body, c.msg) {
			t.Errorf("series?%s: %d %s; want %d with %s", c.q, code, body, c.code, c.msg)
		}
	}
	if _, err := NewRuns(filepath.Join(root, "cmp", matrix.ManifestFile), RunsOptions{}); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("NewRuns(a file): %v", err)
	}
}

// TestRequireToken: with a token, a request needs it as a bearer header, as
// the cookie set by opening ?token=, and is refused without it.
func TestRequireToken(t *testing.T) {
	const tok = "0123456789abcdef-token"
	h := RequireToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }), tok)
	if resp, body := get(t, h, "/api/overview"); resp.StatusCode != 401 || !strings.Contains(body, "missing or wrong token: open the page once as http://127.0.0.1:8422/?token=<token>") {
		t.Errorf("no token: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, h, "/api/overview", "Authorization", "Bearer wrong-token-wrong-token"); resp.StatusCode != 401 {
		t.Errorf("wrong bearer: %d", resp.StatusCode)
	}
	if resp, body := get(t, h, "/api/overview", "Authorization", "Bearer "+tok); resp.StatusCode != 200 || body != "ok" {
		t.Errorf("bearer: %d %q", resp.StatusCode, body)
	}
	resp, _ := get(t, h, "/?token="+tok+"&x=1")
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/?x=1" || len(cookies) != 1 ||
		cookies[0].Name != "hyperctl_token_8422" || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("?token=: %d, Location %q, cookies %v", resp.StatusCode, resp.Header.Get("Location"), cookies)
	}
	if resp, body := get(t, h, "/api/overview", "Cookie", cookies[0].Name+"="+cookies[0].Value); resp.StatusCode != 200 || body != "ok" {
		t.Errorf("cookie: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, h, "/api/overview", "Cookie", cookies[0].Name+"=wrong"); resp.StatusCode != 401 {
		t.Errorf("wrong cookie: %d", resp.StatusCode)
	}
	if resp, _ := get(t, h, "/?token=wrong"); resp.StatusCode != 401 {
		t.Errorf("wrong ?token=: %d", resp.StatusCode)
	}
}

// TestSessions: a real service's session, read through its accessors: the
// observed rewards, the objective as the session defines it (delta:
// R_t − R_{t−1}, none at the first), and the configurations it suggested.
func TestSessions(t *testing.T) {
	srv, err := service.New(service.Options{StateDir: t.TempDir(), Log: zerolog.Nop(), UnsafeNoSync: true, KeepAwake: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	space := []*hyperctlv1.Param{{Name: "lr", Low: 1e-4, High: 1e-3}, {Name: "reward", Low: 0, High: 1}}
	if _, _, err := srv.Create(ctx, &hyperctlv1.CreateSessionRequest{SessionId: "s1", Space: space, Method: "random", Interval: 1, Seed: 3, Iterations: 50}); err != nil {
		t.Fatal(err)
	}
	rewards := []float64{1, 3, 2, 5}
	var suggested [][]float64
	for i, r := range rewards {
		sg, err := srv.Suggest(ctx, "s1", nil)
		if err != nil {
			t.Fatal(err)
		}
		suggested = append(suggested, sg.GetValues())
		if _, err := srv.Observe(ctx, &hyperctlv1.ObserveRequest{SessionId: "s1", Iteration: int32(i), Reward: r, Frames: 100, ElapsedSeconds: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	src := NewSessions(srv, "sessions in test", 0)
	ov, err := src.Overview(ctx)
	if err != nil || len(ov.Runs) != 1 {
		t.Fatalf("overview: %+v, %v", ov, err)
	}
	if r := ov.Runs[0]; r.ID != "s1" || r.Label != "random" || r.Env != "lr, reward" || r.Done != 4 || r.Iterations != 50 || r.State != "running" || ov.X.Key != "iteration" {
		t.Errorf("session as a run: %+v", r)
	}
	s, err := src.Series(ctx, "s1", 0, 0, maxRowsPerReply)
	if err != nil {
		t.Fatal(err)
	}
	// The parameter named "reward" does not hide the observed reward.
	if s.Rows != 4 || strings.Join(s.Hyper, ",") != "lr,param reward" {
		t.Fatalf("series: %+v", s)
	}
	for i := range rewards {
		wantObj := math.NaN()
		if i > 0 {
			wantObj = rewards[i] - rewards[i-1]
		}
		if s.Train["iteration"][i] != float64(i) || s.Train["reward"][i] != rewards[i] || !sameFloat(s.Train["objective"][i], wantObj) ||
			s.Train["lr"][i] != suggested[i][0] || s.Train["param reward"][i] != suggested[i][1] {
			t.Errorf("observation %d: %v %v %v %v %v; want reward %v, objective %v, suggested %v", i, s.Train["iteration"][i], s.Train["reward"][i], s.Train["objective"][i], s.Train["lr"][i], s.Train["param reward"][i], rewards[i], wantObj, suggested[i])
		}
	}
	// From an offset, the objective still has its R_{t−1}.
	s, err = src.Series(ctx, "s1", 2, 0, 1)
	if err != nil || len(s.Train["objective"]) != 1 || s.Train["objective"][0] != -1 || s.Train["iteration"][0] != 2 {
		t.Errorf("series from 2, 1 row: %+v, %v", s, err)
	}
	var re *RequestError
	if _, err := src.Series(ctx, "nope", 0, 0, 10); err == nil || !asRequestError(err, &re) || re.Status != 404 || re.Field != "id" {
		t.Errorf("unknown session: %v", err)
	}
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func asRequestError(err error, re **RequestError) bool {
	e, ok := err.(*RequestError)
	*re = e
	return ok
}

// TestPopulationNames: a population's members are named by method and
// size (matrix.CellName), as report and status name them, in the grid and
// in the runs' labels, so two sizes of one method stay apart.
func TestPopulationNames(t *testing.T) {
	root := t.TempDir()
	for _, size := range []int64{2, 3} {
		pop := filepath.Join(root, fmt.Sprintf("pb2-%d", size), "seed0")
		var seeds []int64
		for sd := int64(0); sd < size; sd++ {
			seeds = append(seeds, sd)
			writeRun(t, filepath.Join(pop, "reacher", "pb2", fmt.Sprintf("seed%d", sd)), "reacher", "population", 0, 2, true)
		}
		if err := matrix.WriteManifest(pop, matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"pb2"}, Seeds: seeds, Iterations: 20}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pop, matrix.PopulationFile), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := NewRuns(root, RunsOptions{Poll: 1})
	if err != nil {
		t.Fatal(err)
	}
	ov, err := src.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var grids []string
	for _, m := range ov.Matrices {
		grids = append(grids, strings.Join(m.Controllers, ","))
	}
	if strings.Join(grids, " ") != "pb2-2 pb2-3" {
		t.Errorf("the grids' controllers %q, want pb2-2 and pb2-3", grids)
	}
	labels := map[string]int{}
	for _, r := range ov.Runs {
		labels[r.Label]++
	}
	if len(labels) != 2 || labels["pb2-2"] != 2 || labels["pb2-3"] != 3 {
		t.Errorf("labels %v, want 2 pb2-2 and 3 pb2-3", labels)
	}
}
