package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pythonDir is the Python client and its example trainer.
const pythonDir = "../../controller/service/python"

// debianPython is the interpreter that sees Debian's python3-* packages.
const debianPython = "/usr/bin/python3"

// server is one `hyperctl serve` child process.
type server struct {
	cmd    *exec.Cmd
	addr   string
	logs   *syncBuf
	exited chan struct{} // closed once the process is reaped
}

// syncBuf is a bytes.Buffer safe for the child's writes and the test's reads.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// startServer starts `hyperctl serve` on listen (port 0: a free one) and
// waits, bounded in polls, until it has written its address.
func startServer(t *testing.T, listen, state string, extra ...string) *server {
	t.Helper()
	return startListening(t, "serve", append([]string{"--listen", listen, "--state", state}, extra...)...)
}

// startListening starts `hyperctl COMMAND ARGS --addr-file F` (serve or
// dashboard) and waits, bounded in polls, until it has written its address.
func startListening(t *testing.T, command string, args ...string) *server {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(binPath, append(append([]string{"--log-format", "json", command}, args...), "--addr-file", addrFile)...)
	s := &server{cmd: cmd, logs: &syncBuf{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.kill)
	for i := 0; i < 6000; i++ {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			s.addr = strings.TrimSpace(string(b))
			return s
		}
		select {
		case <-s.exited:
			t.Fatalf("hyperctl %s exited: %v\n%s", command, cmd.ProcessState, s.logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("hyperctl %s wrote no address within 6000 polls\n%s", command, s.logs.String())
	return nil
}

// kill SIGKILLs the server and waits until it is reaped (its port and its
// lock are then free).
func (s *server) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// rpc posts a JSON request with Connect's protocol.
func rpc(t *testing.T, addr, token, method, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+"/hyperctl.v1.ControllerService/"+method, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func needTorch(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(debianPython); err != nil {
		t.Skipf("%s not found: install Debian's python3 (scripts/setup.sh)", debianPython)
	}
	if out, err := exec.Command(debianPython, "-c", "import torch, numpy").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import torch and numpy (scripts/setup.sh installs python3-torch and python3-numpy): %v\n%s", debianPython, err, out)
	}
}

func TestServeRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	_, e, code := runCLI(t, "serve", "--listen", "0.0.0.0:0", "--state", state)
	if code != 2 || !strings.Contains(e, "not a loopback address") || !strings.Contains(e, "--token-file") {
		t.Fatalf("non-loopback without a token: exit %d\n%s", code, e)
	}
	short := filepath.Join(dir, "tok")
	os.WriteFile(short, []byte("short\n"), 0o600)
	if _, e, code := runCLI(t, "serve", "--listen", "0.0.0.0:0", "--state", state, "--token-file", short); code != 2 || !strings.Contains(e, "at least 16 characters") {
		t.Fatalf("short token: exit %d\n%s", code, e)
	}
	s := startServer(t, "127.0.0.1:0", state)
	_, e, code = runCLI(t, "serve", "--listen", "127.0.0.1:0", "--state", state)
	// The same lock and exit status as a run folder's (safefile.Acquire).
	if code != exitLocked || !strings.Contains(e, fmt.Sprintf("state folder %s is in use: process %d", state, s.cmd.Process.Pid)) {
		t.Fatalf("second server on the same state: exit %d\n%s", code, e)
	}
	if st, body := rpc(t, s.addr, "", "Health", "{}"); st != 200 || body["status"] != "SERVING" {
		t.Fatalf("health: %d %v", st, body)
	}
}

// TestPythonClient runs the Python client's unit tests against a real
// server with a token.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(debianPython); err != nil {
		t.Skipf("%s not found", debianPython)
	}
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	const token = "test-token-0123456789abcdef"
	os.WriteFile(tok, []byte(token+"\n"), 0o600)
	s := startServer(t, "127.0.0.1:0", filepath.Join(dir, "state"), "--token-file", tok)
	cmd := exec.Command(debianPython, "-m", "unittest", "discover", "-s", filepath.Join(pythonDir, "tests"), "-v")
	cmd.Env = append(os.Environ(), "HYPERCTL_TEST_URL=http://"+s.addr, "HYPERCTL_TEST_TOKEN="+token, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("python client tests failed: %v\nserver log:\n%s", err, s.logs.String())
	}
	if !strings.Contains(string(out), "Ran 7 tests") || strings.Contains(string(out), "skipped") {
		t.Fatal("the Python client tests did not all run")
	}
}

// readPPO reads the CSV of ppo_cartpole.py.
func readPPO(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

// TestServeKillRestartPPO is the end-to-end proof: a CleanRL-style PyTorch
// PPO (controller/service/python/examples/ppo_cartpole.py) takes lr and clip
// from `hyperctl serve`; the server is SIGKILLed once mid-run and restarted
// on the same --state; the run finishes with exactly the suggestions (and,
// the PPO being deterministic, the rewards) of an uninterrupted run.
func TestServeKillRestartPPO(t *testing.T) {
	t.Parallel()
	needTorch(t)
	const iterations = 10
	ppo := func(addr, out string) *exec.Cmd {
		cmd := exec.Command(debianPython, filepath.Join(pythonDir, "examples", "ppo_cartpole.py"),
			"--url", "http://"+addr, "--iterations", fmt.Sprint(iterations), "--seed", "3", "--interval", "2",
			"--num-steps", "64", "--session-id", "e2e", "--retries", "40", "--out", out)
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
		return cmd
	}
	dir := t.TempDir()

	// Uninterrupted, alongside the interrupted one.
	ref := startServer(t, "127.0.0.1:0", filepath.Join(dir, "ref-state"))
	refCSV := filepath.Join(dir, "ref.csv")
	refCmd := ppo(ref.addr, refCSV)
	var refOut syncBuf
	refCmd.Stdout, refCmd.Stderr = &refOut, &refOut
	if err := refCmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer refCmd.Process.Kill()

	// Killed once mid-run.
	state := filepath.Join(dir, "state")
	s := startServer(t, "127.0.0.1:0", state)
	runCSV := filepath.Join(dir, "run.csv")
	cmd := ppo(s.addr, runCSV)
	var pout syncBuf
	cmd.Stdout, cmd.Stderr = &pout, &pout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	killedAt := 0
	for i := 0; i < 12000 && killedAt == 0; i++ { // header + 4 rows: mid-run
		if n := countLines(runCSV); n >= 5 {
			killedAt = n - 1
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if killedAt == 0 {
		t.Fatalf("the PPO made no progress within 120 s\n%s", pout.String())
	}
	s.kill()
	if killedAt >= iterations {
		t.Fatalf("the run had finished (%d rows) before the kill", killedAt)
	}
	t.Logf("server SIGKILLed after %d of %d iterations", killedAt, iterations)
	restarted := startServer(t, s.addr, state)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("PPO across the restart: %v\n%s\nserver log:\n%s", err, pout.String(), restarted.logs.String())
	}

	if err := refCmd.Wait(); err != nil {
		t.Fatalf("uninterrupted PPO: %v\n%s", err, refOut.String())
	}
	want, got := readPPO(t, refCSV), readPPO(t, runCSV)
	if len(got) != iterations+1 || len(want) != iterations+1 {
		t.Fatalf("rows: %d interrupted, %d uninterrupted, want %d", len(got)-1, len(want)-1, iterations)
	}
	cols := map[string]int{}
	for i, c := range want[0] {
		cols[c] = i
	}
	for i := 1; i <= iterations; i++ {
		for _, c := range []string{"lr", "clip", "decision", "reward", "frames"} {
			if got[i][cols[c]] != want[i][cols[c]] {
				t.Fatalf("iteration %d: %s = %s after the kill, %s uninterrupted", i-1, c, got[i][cols[c]], want[i][cols[c]])
			}
		}
	}
	decisions := 0
	for i := 1; i <= iterations; i++ {
		if want[i][cols["decision"]] == "1" {
			decisions++
		}
	}
	if decisions != iterations/2 {
		t.Fatalf("%d decisions in %d iterations at interval 2", decisions, iterations)
	}
	// The restarted server holds each iteration exactly once.
	st, body := rpc(t, restarted.addr, "", "GetSession", `{"sessionId":"e2e","history":true}`)
	if st != 200 {
		t.Fatalf("GetSession: %d %v", st, body)
	}
	hist, _ := body["history"].([]any)
	if len(hist) != iterations {
		t.Fatalf("history holds %d observations, want %d", len(hist), iterations)
	}
	for i, h := range hist {
		if it := h.(map[string]any)["iteration"].(float64); int(it) != i {
			t.Fatalf("history[%d] is iteration %v", i, it)
		}
	}
	if !strings.Contains(restarted.logs.String(), "sessions restored") {
		t.Fatalf("the restarted server did not restore the session:\n%s", restarted.logs.String())
	}
}

// rescueDefaultLR is the example trainer's own lr (CleanRL's CartPole
// default, ppo_cartpole.py --fixed): where a rescue should move lr.
const rescueDefaultLR = 2.5e-4

// TestServePythonWrongStart is issue 37 part 5: the Python PPO example
// starts a session from a wrong lr (0.12x and 12x its default 2.5e-4) over
// a log-scale lr range [1e-5, 1e-2] that holds both, with hypercontroller
// at interval 5, seed 1, 40 iterations of 4x128 CartPole steps. The first
// decision period must run at the start, and a later decision must move lr
// off it; the log reports whether the median lr of the last 4 decisions
// (iterations 20-39) is closer to the default in log10 distance than the
// start was.
//
// What it shows, and what it does not: the start reaches the trainer
// through serve and the controller moves lr off it. It is not evidence of
// a rescue, so the test does not assert one. It first did: with the
// AVX-512 kernels that torch picks on its own on this machine, the low
// start's last decisions were 1e-2, 1e-2, 4.6e-5, 1e-4 (median 1e-3,
// distance 0.60 against 0.92) and the high start settled at 2.15e-5, the
// opposite error (distance 1.06 against 1.08), which passed by 0.02. On the
// kernels `make test` pins (OPENBLAS_CORETYPE=Haswell, ATen avx2) the same
// runs went the other way for the low start (median 1e-2, distance 1.60
// against 0.92) and toward the default for the high one (0.27 against 1.08):
// which way lr goes depends on float rounding, not on the controller. The default
// lies at the log-centre of the range, so `random` with the same settings
// meets the criterion too, better (median 2.6e-4, distance 0.02 for both
// starts). Mean reward of the last 10 iterations: low start 227 (random
// 237, lr held at 3e-5 29), high start 146 (random 145, lr held at 3e-3
// 203); lr held at 2.5e-4 216.
func TestServePythonWrongStart(t *testing.T) {
	t.Parallel()
	needTorch(t)
	const iterations, interval, lastK = 40, 5, 4
	dir := t.TempDir()
	s := startServer(t, "127.0.0.1:0", filepath.Join(dir, "state"))
	starts := []struct {
		name string
		lr   float64
	}{{"low", 3e-5}, {"high", 3e-3}}
	cmds := make([]*exec.Cmd, len(starts))
	outs := make([]*syncBuf, len(starts))
	for i, st := range starts {
		cmd := exec.Command(debianPython, filepath.Join(pythonDir, "examples", "ppo_cartpole.py"),
			"--url", "http://"+s.addr, "--iterations", fmt.Sprint(iterations), "--seed", "1",
			"--interval", fmt.Sprint(interval), "--method", "hypercontroller",
			"--lr", strconv.FormatFloat(st.lr, 'g', -1, 64), "--lr-range", "1e-5,1e-2", "--lr-scale", "log",
			"--session-id", "rescue-"+st.name, "--out", filepath.Join(dir, st.name+".csv"))
		cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
		outs[i] = &syncBuf{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		cmds[i] = cmd
	}
	for i, st := range starts {
		if err := cmds[i].Wait(); err != nil {
			t.Fatalf("start %s: PPO: %v\n%s\nserver log:\n%s", st.name, err, outs[i].String(), s.logs.String())
		}
		rows := readPPO(t, filepath.Join(dir, st.name+".csv"))
		if len(rows) != iterations+1 {
			t.Fatalf("start %s: %d rows, want %d", st.name, len(rows)-1, iterations)
		}
		cols := map[string]int{}
		for j, c := range rows[0] {
			cols[c] = j
		}
		lrs := make([]float64, iterations)
		var decided []float64
		for it := 0; it < iterations; it++ {
			lr, err := strconv.ParseFloat(rows[it+1][cols["lr"]], 64)
			if err != nil {
				t.Fatalf("start %s: iteration %d: lr: %v", st.name, it, err)
			}
			lrs[it] = lr
			if rows[it+1][cols["decision"]] == "1" {
				decided = append(decided, lr)
			}
		}
		for it := 0; it < interval; it++ {
			if lrs[it] != st.lr {
				t.Fatalf("start %s: iteration %d ran at lr %g, want the start %g", st.name, it, lrs[it], st.lr)
			}
		}
		if len(decided) != iterations/interval {
			t.Fatalf("start %s: %d decisions in %d iterations at interval %d", st.name, len(decided), iterations, interval)
		}
		last := decided[len(decided)-lastK:]
		med := logMedian(last)
		before := math.Abs(math.Log10(st.lr / rescueDefaultLR))
		after := math.Abs(math.Log10(med / rescueDefaultLR))
		t.Logf("start %s: lr %g, decisions %v; median of the last %d %.3g: log10 distance to %g %.2f (start %.2f)",
			st.name, st.lr, decided, lastK, med, rescueDefaultLR, after, before)
		if !slices.ContainsFunc(decided[1:], func(lr float64) bool { return lr != st.lr }) {
			t.Errorf("start %s: the controller never moved lr off the start %g: decisions %v", st.name, st.lr, decided)
		}
	}
}

// logMedian is the median of positive xs on a log scale (for an even count,
// the geometric mean of the middle two).
func logMedian(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return math.Sqrt(s[n/2-1] * s[n/2])
}

// TestServeQuarantineAndCheck is issue 29's first reproduction, end to end:
// a neuralbo session over x in [−1e308, 1e308] is refused at creation with
// the field named; a server whose state folder holds a deliberately
// damaged session starts, serves the others and answers the damaged one
// with FAILED_PRECONDITION naming the file; `serve --check` reports both
// without serving, and exits 1.
func TestServeQuarantineAndCheck(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	s := startServer(t, "127.0.0.1:0", state)
	st, body := rpc(t, s.addr, "", "CreateSession", `{"sessionId":"wide","method":"neuralbo","space":[{"name":"x","low":-1e308,"high":1e308}]}`)
	if st != 400 || body["code"] != "invalid_argument" || !strings.Contains(fmt.Sprint(body["message"]), "space[0]: x: span") {
		t.Fatalf("the ±1e308 space: %d %v", st, body)
	}
	for _, id := range []string{"good", "bad"} {
		if st, body := rpc(t, s.addr, "", "CreateSession", `{"sessionId":"`+id+`","method":"random","space":[{"name":"x","low":0,"high":1}]}`); st != 200 {
			t.Fatalf("create %s: %d %v", id, st, body)
		}
		for it := 0; it < 3; it++ {
			if st, body := rpc(t, s.addr, "", "Observe", fmt.Sprintf(`{"sessionId":%q,"iteration":%d,"reward":%d}`, id, it, it)); st != 200 {
				t.Fatalf("observe %s %d: %d %v", id, it, st, body)
			}
		}
	}
	s.kill()
	// A damaged record in the middle of bad's log: its first observation.
	logPath := filepath.Join(state, "sessions", "bad", "log")
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(`bad`)) // inside the creation record
	b[i] ^= 0xff
	if err := os.WriteFile(logPath, b, 0o600); err != nil {
		t.Fatal(err)
	}

	out, e, code := runCLI(t, "serve", "--check", "--state", state)
	if code != exitFailure || !strings.Contains(out, "good") || !strings.Contains(out, "quarantined: "+logPath) || !strings.Contains(out, "1 would be served, 1 quarantined") {
		t.Fatalf("serve --check: exit %d\n%s\n%s", code, out, e)
	}
	if got, _ := os.ReadFile(logPath); !bytes.Equal(got, b) {
		t.Fatal("serve --check changed the damaged log")
	}

	s = startServer(t, "127.0.0.1:0", state)
	if !strings.Contains(s.logs.String(), `"file":"`+logPath+`"`) {
		t.Fatalf("the quarantine is not logged with its file:\n%s", s.logs.String())
	}
	st, body = rpc(t, s.addr, "", "Suggest", `{"sessionId":"bad"}`)
	if st != 400 || body["code"] != "failed_precondition" || !strings.Contains(fmt.Sprint(body["message"]), logPath) {
		t.Fatalf("suggest bad: %d %v", st, body)
	}
	st, body = rpc(t, s.addr, "", "Suggest", `{"sessionId":"good"}`)
	if st != 200 || body["iteration"] != float64(3) {
		t.Fatalf("suggest good: %d %v", st, body)
	}
	if st, body := rpc(t, s.addr, "", "Health", "{}"); st != 200 || body["quarantined"] != float64(1) || body["sessions"] != float64(2) {
		t.Fatalf("health: %d %v", st, body)
	}
}
