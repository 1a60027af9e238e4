package matrix

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// A worker is a long-lived hyperctl child that runs requests one after
// another (a population's members, generation after generation), so the
// work pays for one process start and one libtorch load per worker, not
// one per request. Requests and replies are JSON lines on two pipes, the
// child's file descriptors 3 (requests) and 4 (replies); while a request
// runs, the child's stdout and stderr are appended to the request's
// folder's train.log, as a RunFolder child's are.
const (
	workerRequestFD = 3
	workerReplyFD   = 4
)

// workerRequests is how many requests a worker runs before it is
// replaced by a new process: a worker's memory grows by a few MB per
// request (HalfCheetah and Reacher members: from about 450 MB after 7
// requests to 700 MB after 50), which a process per request never kept.
const workerRequests = 20

// workerRequest is one request line: the run folder it writes and the
// caller's request.
type workerRequest struct {
	Dir     string          `json:"dir"`
	Request json.RawMessage `json:"request"`
}

// workerReply is one reply line: empty Error for success; Locked when the
// folder was held by another writer (Workers.Do waits and asks again).
type workerReply struct {
	Error  string `json:"error,omitempty"`
	Locked bool   `json:"locked,omitempty"`
}

// Workers is a pool of long-lived `binary --log-format json ARGS
// --threads N` children (`hyperctl population member` without a member:
// see ServeWorker), each started on first use and kept between requests.
// Do hands a request to an idle worker, so at most n run at once; a worker
// is replaced by a new process after workerRequests requests. A worker
// gets what a RunFolder child gets: the environment (GOMAXPROCS,
// OMP_NUM_THREADS), SIGTERM if this process dies (Linux), SIGINT when a
// request's context ends (it checkpoints and exits), a wait while another
// process holds the folder. A worker that dies fails its request, and the
// next request starts a new one.
type Workers struct {
	idle chan *worker
}

// NewWorkers returns a pool of n workers running binary with args.
func NewWorkers(n int, log zerolog.Logger, binary string, args []string, threads int) *Workers {
	p := &Workers{idle: make(chan *worker, n)}
	for range n {
		w := &worker{log: log, binary: binary, args: args, threads: threads, calls: make(chan workerCall), done: make(chan struct{})}
		go w.own()
		p.idle <- w
	}
	return p
}

// Do runs req (marshalled to JSON) in an idle worker, for the run folder
// dir, and returns its error.
func (p *Workers) Do(ctx context.Context, dir string, req any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	var w *worker
	select {
	case w = <-p.idle:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { p.idle <- w }()
	reply := make(chan error, 1)
	w.calls <- workerCall{ctx: ctx, dir: dir, req: b, reply: reply}
	return <-reply
}

// Close ends every worker (each finishes its request first) and waits
// for them.
func (p *Workers) Close() {
	for range cap(p.idle) {
		w := <-p.idle
		close(w.calls)
		<-w.done
	}
}

type workerCall struct {
	ctx   context.Context
	dir   string
	req   []byte
	reply chan error
}

// worker is one child process and the goroutine that owns it.
type worker struct {
	log     zerolog.Logger
	binary  string
	args    []string
	threads int
	calls   chan workerCall
	done    chan struct{}

	cmd     *exec.Cmd
	reqs    io.WriteCloser
	replies *bufio.Reader
	exited  chan error // the child's Wait, once it has ended
	served  int        // requests the running child has answered
}

// own serves the calls on one OS thread: the parent-death signal fires
// when the thread that started the child exits, so the thread stays this
// goroutine's until the child has ended.
func (w *worker) own() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(w.done)
	for c := range w.calls {
		err := w.serve(c)
		if w.cmd != nil && w.served >= workerRequests {
			w.stop() // the next request starts a new one
		}
		c.reply <- err
	}
	w.stop()
}

// serve runs one call, starting the child if none is running.
func (w *worker) serve(c workerCall) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	line, err := json.Marshal(workerRequest{Dir: c.dir, Request: c.req})
	if err != nil {
		return err
	}
	for {
		if err := waitUnlocked(c.ctx, w.log, c.dir); err != nil {
			return err
		}
		if w.cmd == nil {
			if err := w.start(); err != nil {
				return err
			}
		}
		rep, err := w.call(c.ctx, append(line, '\n'))
		w.served++
		if err != nil {
			return fmt.Errorf("%w (see %s)", err, filepath.Join(c.dir, rundir.LogFile))
		}
		if rep.Locked {
			continue // another writer took the folder meanwhile: wait for it
		}
		if rep.Error != "" {
			return fmt.Errorf("%s (see %s)", rep.Error, filepath.Join(c.dir, rundir.LogFile))
		}
		return nil
	}
}

// start starts the child with the request and reply pipes.
func (w *worker) start() error {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return err
	}
	c := childCommand(w.binary, w.args, w.threads)
	c.ExtraFiles = []*os.File{reqR, repW} // fds 3 and 4
	err = c.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return err
	}
	w.cmd, w.reqs, w.replies, w.exited, w.served = c, reqW, bufio.NewReader(repR), make(chan error, 1), 0
	go func() {
		err := c.Wait()
		repR.Close()
		w.exited <- err
	}()
	return nil
}

// call sends one request line and waits for its reply; if ctx ends first,
// the child gets SIGINT (it checkpoints) and is waited for.
func (w *worker) call(ctx context.Context, line []byte) (workerReply, error) {
	type answer struct {
		rep workerReply
		err error
	}
	got := make(chan answer, 1)
	go func() {
		var a answer
		if _, err := w.reqs.Write(line); err != nil {
			a.err = err
		} else if b, err := w.replies.ReadBytes('\n'); err != nil {
			a.err = err
		} else {
			a.err = json.Unmarshal(b, &a.rep)
		}
		got <- a
	}()
	select {
	case a := <-got:
		if a.err != nil { // the child died: its exit status says how
			err := w.reap()
			if err == nil {
				err = fmt.Errorf("worker ended without a reply: %w", a.err)
			}
			return workerReply{}, err
		}
		return a.rep, nil
	case <-ctx.Done():
		_ = w.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-w.exited:
		case <-time.After(60 * time.Second):
			_ = w.cmd.Process.Kill()
			<-w.exited
		}
		w.forget()
		<-got
		return workerReply{}, ctx.Err()
	}
}

// reap waits for a child that closed its reply pipe and returns its
// exit error.
func (w *worker) reap() error {
	w.reqs.Close()
	err := <-w.exited
	w.forget()
	return err
}

// forget drops the ended child.
func (w *worker) forget() {
	if w.reqs != nil {
		w.reqs.Close()
	}
	w.cmd, w.reqs, w.replies = nil, nil, nil
}

// stop ends a running child: closing its requests ends its loop.
func (w *worker) stop() {
	if w.cmd == nil {
		return
	}
	w.reqs.Close()
	if err := <-w.exited; err != nil {
		w.log.Warn().Err(err).Msg("a population worker ended with an error")
	}
	w.forget()
}

// ServeWorker is a worker's side (the child of Workers): it reads the
// requests on file descriptor 3 one at a time and runs each with do, its
// stdout and stderr appended to the request folder's train.log, then
// answers on file descriptor 4. A failed request's error is also written
// to that log, as `hyperctl: ERROR`, the line a RunFolder child ends with;
// one that found the folder locked (a *rundir.LockedError) is answered
// so, and the pool waits and asks again. It returns when the requests
// end (the pool closed them) or after a request that ctx ended.
func ServeWorker(ctx context.Context, do func(ctx context.Context, request json.RawMessage) error) error {
	in := os.NewFile(workerRequestFD, "requests")
	out := os.NewFile(workerReplyFD, "replies")
	if in == nil || out == nil {
		return errors.New("worker: no request and reply pipes (file descriptors 3 and 4): it runs under a pool of workers")
	}
	defer in.Close()
	defer out.Close()
	rd := bufio.NewReader(in)
	for {
		line, err := rd.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("worker: reading a request: %w", err)
		}
		var req workerRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("worker: request %q: %w", line, err)
		}
		rep := serveOne(ctx, req, do)
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		if _, err := out.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("worker: replying: %w", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// serveOne runs one request with its output in its folder's train.log.
func serveOne(ctx context.Context, req workerRequest, do func(context.Context, json.RawMessage) error) workerReply {
	logf, err := os.OpenFile(filepath.Join(req.Dir, rundir.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return workerReply{Error: err.Error()}
	}
	defer logf.Close()
	restore, err := redirectOutput(logf)
	if err != nil {
		return workerReply{Error: err.Error()}
	}
	err = do(ctx, req.Request)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hyperctl: %v\n", err)
	}
	restore()
	var le *rundir.LockedError
	switch {
	case errors.As(err, &le):
		return workerReply{Locked: true, Error: err.Error()}
	case err != nil:
		return workerReply{Error: err.Error()}
	}
	return workerReply{}
}
