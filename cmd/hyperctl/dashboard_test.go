package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// getPage requests path from a server at addr, with a bearer token when
// given, and returns the status and the body.
func getPage(t *testing.T, addr, token, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// startDashboard starts `hyperctl dashboard` and waits, bounded in polls,
// until it has written its address.
func startDashboard(t *testing.T, args ...string) *server {
	t.Helper()
	return startListening(t, "dashboard", append([]string{"--listen", "127.0.0.1:0"}, args...)...)
}

// TestDashboardCommand: `hyperctl dashboard` refuses what `serve` refuses
// (a non-loopback address without a token, a short token) and bad
// arguments, and serves the committed 150-run compare folder: every run
// finished, its matrix, and a run's rows as train.csv has them.
func TestDashboardCommand(t *testing.T) {
	t.Parallel()
	const study = "../../results/study-options"
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("short\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dashboard"}, "accepts 1 arg"},
		{[]string{"dashboard", filepath.Join(dir, "absent")}, "no such file or directory"},
		{[]string{"dashboard", short}, "is a file; give the folder of a run, of a compare, or of any runs"},
		{[]string{"dashboard", dir, "--listen", "0.0.0.0:0"}, "not a loopback address: anyone who can reach it could read the runs under its folder (read-only"},
		{[]string{"dashboard", dir, "--listen", "0.0.0.0:0", "--token-file", short}, "at least 16 characters"},
		{[]string{"dashboard", dir, "--poll", "1ms"}, "--poll: want a duration in [200ms, 1m], got 1ms"},
	} {
		if _, e, code := runCLI(t, c.args...); code != exitUsage || !strings.Contains(e, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", c.args, code, exitUsage, c.want, e)
		}
	}

	// A busy port: the error says to give --listen another address.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, e, code := runCLI(t, "dashboard", dir, "--listen", busy.Addr().String()); code == 0 || !strings.Contains(e, "address already in use") || !strings.Contains(e, "give --listen another address") {
		t.Errorf("a busy port: exit %d, want the --listen hint\n%s", code, e)
	}

	s := startDashboard(t, study)
	code, body := getPage(t, s.addr, "", "/api/overview")
	var ov struct {
		Runs []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"runs"`
		Matrices []struct {
			Envs, Controllers []string
			Runs              []string
		} `json:"matrices"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &ov) != nil {
		t.Fatalf("overview: %d %.300s", code, body)
	}
	finished := 0
	for _, r := range ov.Runs {
		if r.State == "finished" {
			finished++
		}
	}
	if len(ov.Runs) != 150 || finished != 150 || len(ov.Matrices) != 1 || len(ov.Matrices[0].Runs) != 150 || len(ov.Matrices[0].Controllers) != 6 {
		t.Fatalf("overview of %s: %d runs, %d finished, matrices %d", study, len(ov.Runs), finished, len(ov.Matrices))
	}
	const run = "halfcheetah/hypercontroller@rl/seed0"
	l, err := rundir.ReadLog(filepath.Join(study, run, rundir.TrainCSV))
	if err != nil {
		t.Fatal(err)
	}
	code, body = getPage(t, s.addr, "", "/api/series?id="+run)
	var ser struct {
		Rows  int                  `json:"rows"`
		Train map[string][]float64 `json:"train"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &ser) != nil || ser.Rows != len(l.Rows) || len(ser.Train["train_reward"]) != len(l.Rows) {
		t.Fatalf("series of %s: %d, %d rows, want %d", run, code, ser.Rows, len(l.Rows))
	}
	c, _ := l.Col(rundir.ColTrainReward)
	if last, _ := l.Float(len(l.Rows)-1, c); ser.Train["train_reward"][len(l.Rows)-1] != last {
		t.Errorf("last train_reward %v, train.csv has %v", ser.Train["train_reward"][len(l.Rows)-1], last)
	}

	// With a token, nothing is served without it.
	tokFile := filepath.Join(dir, "tok")
	os.WriteFile(tokFile, []byte("dashboard-token-0123456789\n"), 0o600)
	st := startDashboard(t, study, "--token-file", tokFile)
	if code, body := getPage(t, st.addr, "", "/api/overview"); code != 401 || !strings.Contains(body, "missing or wrong token") {
		t.Errorf("without the token: %d %.200s", code, body)
	}
	if code, body := getPage(t, st.addr, "dashboard-token-0123456789", "/"); code != 200 || !strings.Contains(body, "uPlot") {
		t.Errorf("with the token: %d %.200s", code, body)
	}
}

// TestServeDashboard: `hyperctl serve` serves the page of its sessions
// beside the API, behind the same token.
func TestServeDashboard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "tok")
	const tok = "serve-token-0123456789abcdef"
	os.WriteFile(tokFile, []byte(tok+"\n"), 0o600)
	s := startServer(t, "127.0.0.1:0", filepath.Join(dir, "state"), "--token-file", tokFile)
	if code, _ := rpc(t, s.addr, tok, "CreateSession", `{"sessionId":"web","method":"random","interval":1,"space":[{"name":"lr","low":0.0001,"high":0.001}]}`); code != 200 {
		t.Fatalf("CreateSession: %d", code)
	}
	for i, r := range []string{"1.5", "2.5", "2"} {
		if code, body := rpc(t, s.addr, tok, "Observe", `{"sessionId":"web","iteration":`+string(rune('0'+i))+`,"reward":`+r+`,"frames":"100"}`); code != 200 {
			t.Fatalf("Observe %d: %d %v", i, code, body)
		}
	}
	if code, body := getPage(t, s.addr, "", "/"); code != 401 || !strings.Contains(body, "missing or wrong token") {
		t.Errorf("the page without the token: %d %.200s", code, body)
	}
	code, body := getPage(t, s.addr, tok, "/api/series?id=web")
	var ser struct {
		Rows  int                   `json:"rows"`
		Train map[string][]*float64 `json:"train"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &ser) != nil || ser.Rows != 3 || len(ser.Train["lr"]) != 3 {
		t.Fatalf("series: %d %.300s", code, body)
	}
	if o := ser.Train["objective"]; o[0] != nil || *o[1] != 1 || *o[2] != -0.5 {
		t.Errorf("objective (delta) %v; want null, 1, -0.5", body)
	}
	if code, body := getPage(t, s.addr, tok, "/api/overview"); code != 200 || !strings.Contains(body, `"kind":"sessions"`) || !strings.Contains(body, `"id":"web"`) {
		t.Errorf("overview: %d %.300s", code, body)
	}
	if st, body := rpc(t, s.addr, tok, "Health", "{}"); st != 200 || body["status"] != "SERVING" {
		t.Errorf("the API beside the page: %d %v", st, body)
	}
}
