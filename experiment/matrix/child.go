package matrix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// ExitLocked is the exit code of a hyperctl process that finds its run
// folder (or serve's --state) locked by another writer; RunFolder waits
// and tries again.
const ExitLocked = 3

// lockPoll is how often RunFolder checks whether a locked run folder is
// free.
const lockPoll = 250 * time.Millisecond

// JobThreads is the number of threads each of jobs local runs gets: the
// CPUs shared out, at least 1.
func JobThreads(jobs int) int { return max(1, runtime.NumCPU()/jobs) }

// waitUnlocked returns when no other process holds dir's writer lock (or
// ctx ends), logging once that it waits and for which pid.
func waitUnlocked(ctx context.Context, log zerolog.Logger, dir string) error {
	lastPID := -1
	for {
		pid, held, err := rundir.Holder(dir)
		if err != nil {
			return err
		}
		if !held {
			return nil
		}
		if pid != lastPID {
			log.Warn().Str("run", dir).Int("pid", pid).Msg("the run folder is locked by another writer; waiting for it to end")
			lastPID = pid
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// RunFolder runs `binary --log-format json ARGS --threads N` (hyperctl) as
// a child process that writes the run folder dir, its output appended to
// dir's train.log. It first waits while another process writes the folder
// (an orphan of an earlier compare, a train started by hand), and again if
// the child finds the folder locked (exit code ExitLocked). Cancellation
// sends SIGINT so the child checkpoints before exiting; if this process
// dies, the child gets SIGTERM (Pdeathsig, Linux) and checkpoints too.
func RunFolder(ctx context.Context, log zerolog.Logger, binary, dir string, args []string, threads int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for {
		if err := waitUnlocked(ctx, log, dir); err != nil {
			return err
		}
		err := runChild(ctx, binary, dir, args, threads)
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == ExitLocked {
			continue // another writer took the folder meanwhile: wait for it
		}
		return err
	}
}

// runChild runs `binary --log-format json ARGS --threads N`, its output
// appended to dir's train.log.
func runChild(ctx context.Context, binary, dir string, cmdArgs []string, threads int) error {
	logf, err := os.OpenFile(filepath.Join(dir, rundir.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	c := childCommand(binary, cmdArgs, threads)
	c.Stdout, c.Stderr = logf, logf
	// The parent-death signal fires when the thread that started the child
	// exits, not the process: keep this goroutine on its thread until the
	// child has ended.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.Start(); err != nil {
		return err
	}
	waitDone := make(chan error, 1)
	go func() { waitDone <- c.Wait() }()
	select {
	case err := <-waitDone:
		if err != nil {
			return fmt.Errorf("%w (see %s)", err, filepath.Join(dir, rundir.LogFile))
		}
		return nil
	case <-ctx.Done():
		_ = c.Process.Signal(syscall.SIGINT)
		select {
		case <-waitDone:
		case <-time.After(60 * time.Second):
			_ = c.Process.Kill()
			<-waitDone
		}
		return ctx.Err()
	}
}

// childCommand is `binary --log-format json ARGS --threads N` with
// GOMAXPROCS and OMP_NUM_THREADS set to N, getting SIGTERM when this
// process dies (Linux).
func childCommand(binary string, cmdArgs []string, threads int) *exec.Cmd {
	args := append(append([]string{"--log-format", "json"}, cmdArgs...), "--threads", strconv.Itoa(threads))
	c := exec.Command(binary, args...)
	c.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(threads), "OMP_NUM_THREADS="+strconv.Itoa(threads))
	c.SysProcAttr = childProcAttr()
	return c
}
