package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// workerEnv makes this test binary a worker (TestMain): it serves
// testWorkerRequest's, as `hyperctl population member` serves members.
const workerEnv = "HYPERCTL_TEST_WORKER"

// testWorkerRequest tells the test worker what to do: print a line,
// then fail with Fail, or exit with Exit (a dying worker).
type testWorkerRequest struct {
	Say  string `json:"say"`
	Fail string `json:"fail,omitempty"`
	Exit int    `json:"exit,omitempty"`
	// Block: wait for a signal (SIGINT, as Workers.Do sends when its
	// context ends, kills the process).
	Block bool `json:"block,omitempty"`
}

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		err := ServeWorker(context.Background(), func(_ context.Context, raw json.RawMessage) error {
			var r testWorkerRequest
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			fmt.Printf("%s from pid %d\n", r.Say, os.Getpid())
			if r.Block {
				time.Sleep(time.Hour)
			}
			if r.Exit != 0 {
				os.Exit(r.Exit)
			}
			if r.Fail != "" {
				return fmt.Errorf("%s", r.Fail)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestWorkers runs requests through one worker: they share its process,
// each one's output lands in its folder's train.log, a failure comes back
// as the request's error (and in its log), and a worker that dies fails
// its request and is replaced by a new process for the next one.
func TestWorkers(t *testing.T) {
	t.Setenv(workerEnv, "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := NewWorkers(1, zerolog.Nop(), self, nil, 1)
	defer p.Close()
	pids := map[string]string{}
	for i, tc := range []struct {
		req     testWorkerRequest
		wantErr string
		proc    string // requests with the same proc ran in one process
	}{
		{req: testWorkerRequest{Say: "first"}, proc: "a"},
		{req: testWorkerRequest{Say: "second"}, proc: "a"},
		{req: testWorkerRequest{Say: "third", Fail: "no luck"}, wantErr: "no luck", proc: "a"},
		{req: testWorkerRequest{Say: "fourth", Exit: 7}, wantErr: "exit status 7", proc: "a"},
		{req: testWorkerRequest{Say: "fifth"}, proc: "b"},
		{req: testWorkerRequest{Say: "sixth"}, proc: "b"},
	} {
		run := filepath.Join(dir, fmt.Sprintf("run%d", i))
		err := p.Do(context.Background(), run, tc.req)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Fatalf("request %d (%+v): error %v, want %q", i, tc.req, err, tc.wantErr)
		}
		b, err := os.ReadFile(filepath.Join(run, "train.log"))
		if err != nil {
			t.Fatal(err)
		}
		var say, pid string
		if _, err := fmt.Sscanf(string(b), "%s from pid %s", &say, &pid); err != nil || say != tc.req.Say {
			t.Fatalf("request %d: train.log holds %q, want its line", i, b)
		}
		if tc.req.Fail != "" && !strings.Contains(string(b), "hyperctl: "+tc.req.Fail) {
			t.Errorf("request %d: train.log %q does not end with the error", i, b)
		}
		if old, ok := pids[tc.proc]; ok && old != pid {
			t.Errorf("request %d ran in pid %s, want the worker's %s", i, pid, old)
		}
		for proc, old := range pids {
			if proc != tc.proc && old == pid {
				t.Errorf("request %d ran in pid %s, the worker that died", i, pid)
			}
		}
		pids[tc.proc] = pid
	}
}

// TestWorkersCancel ends a request's context while it runs: Do returns
// the context's error once the worker has ended (SIGINT), and the next
// request runs in a new worker.
func TestWorkersCancel(t *testing.T) {
	t.Setenv(workerEnv, "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := NewWorkers(1, zerolog.Nop(), self, nil, 1)
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- p.Do(ctx, filepath.Join(dir, "blocked"), testWorkerRequest{Say: "blocked", Block: true})
	}()
	for i := 0; ; i++ { // until the worker has said its line (bounded: 60 s)
		if b, _ := os.ReadFile(filepath.Join(dir, "blocked", "train.log")); len(b) > 0 {
			break
		}
		if i == 60000 {
			t.Fatal("the blocked request never started")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v, want context.Canceled", err)
	}
	if err := p.Do(context.Background(), filepath.Join(dir, "next"), testWorkerRequest{Say: "next"}); err != nil {
		t.Fatalf("the request after a cancelled one: %v", err)
	}
}

// TestWorkersRecycle runs more requests than a worker serves: every
// workerRequests requests a new process takes over.
func TestWorkersRecycle(t *testing.T) {
	t.Setenv(workerEnv, "1")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := NewWorkers(1, zerolog.Nop(), self, nil, 1)
	defer p.Close()
	var pids []string
	for i := range 2*workerRequests + 1 {
		run := filepath.Join(dir, fmt.Sprintf("run%d", i))
		if err := p.Do(context.Background(), run, testWorkerRequest{Say: "hello"}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b, err := os.ReadFile(filepath.Join(run, "train.log"))
		if err != nil {
			t.Fatal(err)
		}
		var say, pid string
		if _, err := fmt.Sscanf(string(b), "%s from pid %s", &say, &pid); err != nil {
			t.Fatalf("request %d: train.log holds %q", i, b)
		}
		pids = append(pids, pid)
	}
	for i := 1; i < len(pids); i++ {
		if same := pids[i] == pids[i-1]; same != (i%workerRequests != 0) {
			t.Errorf("request %d ran in pid %s after pid %s; a new worker is due every %d requests", i, pids[i], pids[i-1], workerRequests)
		}
	}
}
