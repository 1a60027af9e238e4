//go:build linux

package service

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
)

// reportPercentiles reports the p50 and p99 of d.
func reportPercentiles(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkDurableAppend measures, on the disk that holds the temporary
// folder, the ways of making one 60-byte log record durable that the
// session log could use (results/serve/README.md compares them):
//
//	go test -run '^$' -bench BenchmarkDurableAppend -benchtime 2000x ./controller/service
//
// grow+fsync, grow+fdatasync and grow+O_DSYNC append at the end of the
// file, so each flush also commits the new size (metadata).
// fallocate+fdatasync writes into space reserved with fallocate(2), whose
// unwritten extents must be converted (metadata) on first write.
// prewritten+fdatasync writes into zeros written and fsync'd beforehand, so
// only the record's data is flushed; prewritten+O_DSYNC does the same with
// the file opened O_DSYNC, and prewritten+RWF_DSYNC with one
// pwritev2(RWF_DSYNC) per record (one syscall instead of two; run 8 in
// results/serve/README.md found no gain, so the log does not use it).
func BenchmarkDurableAppend(b *testing.B) {
	const rec = 60
	fdatasync := func(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
	fsync := func(f *os.File) error { return f.Sync() }
	prewrite := func(f *os.File, size int64) error {
		if _, err := f.WriteAt(make([]byte, size), 0); err != nil {
			return err
		}
		return f.Sync()
	}
	cases := []struct {
		name  string
		flags int
		setup func(f *os.File, size int64) error
		sync  func(f *os.File) error
		dsync bool // write with pwritev2(RWF_DSYNC)
	}{
		{"grow+fsync", 0, nil, fsync, false},
		{"grow+fdatasync", 0, nil, fdatasync, false},
		{"grow+O_DSYNC", syscall.O_DSYNC, nil, nil, false},
		{"fallocate+fdatasync", 0, func(f *os.File, size int64) error {
			if err := syscall.Fallocate(int(f.Fd()), 0, 0, size); err != nil {
				return err
			}
			return f.Sync()
		}, fdatasync, false},
		{"prewritten+fdatasync", 0, prewrite, fdatasync, false},
		{"prewritten+O_DSYNC", syscall.O_DSYNC, prewrite, nil, false},
		{"prewritten+RWF_DSYNC", 0, prewrite, nil, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f, err := os.OpenFile(filepath.Join(b.TempDir(), "log"), os.O_RDWR|os.O_CREATE|c.flags, fileMode)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			if c.setup != nil {
				if err := c.setup(f, int64(b.N+1)*rec); err != nil {
					b.Skipf("%s: %v", c.name, err)
				}
			}
			buf := make([]byte, rec)
			for i := range buf {
				buf[i] = byte(i + 1)
			}
			d := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if c.dsync {
					if _, err := unix.Pwritev2(int(f.Fd()), [][]byte{buf}, int64(i)*rec, unix.RWF_DSYNC); err != nil {
						b.Skipf("pwritev2 RWF_DSYNC: %v", err)
					}
				} else if _, err := f.WriteAt(buf, int64(i)*rec); err != nil {
					b.Fatal(err)
				}
				if c.sync != nil {
					if err := c.sync(f); err != nil {
						b.Fatal(err)
					}
				}
				d = append(d, time.Since(t0))
			}
			b.StopTimer()
			reportPercentiles(b, d)
		})
	}
}

// BenchmarkObserveInProcess is one Server.Observe (the controller's update,
// the record's encoding and its durable append) without the network, with
// and without the fdatasync.
//
//	go test -run '^$' -bench BenchmarkObserveInProcess -benchtime 2000x ./controller/service
func BenchmarkObserveInProcess(b *testing.B) {
	for _, sync := range []bool{true, false} {
		name := "fsync=on"
		if !sync {
			name = "fsync=off"
		}
		b.Run(name, func(b *testing.B) {
			s, err := New(Options{StateDir: b.TempDir(), Log: zerolog.Nop(), UnsafeNoSync: !sync, SnapshotEvery: 1 << 30})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			if _, _, err := s.Create(ctx, &hyperctlv1.CreateSessionRequest{SessionId: "x", Space: twoParams(), Method: "hypercontroller", Interval: loadInterval}); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			d := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				sg, err := s.Suggest(ctx, "x", nil)
				if err != nil {
					b.Fatal(err)
				}
				req := &hyperctlv1.ObserveRequest{SessionId: "x", Iteration: int32(it), Reward: reward(it, sg.Values, rng), Frames: loadFrames, ElapsedSeconds: loadElapsed}
				t0 := time.Now()
				if _, err := s.Observe(ctx, req); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(t0))
			}
			b.StopTimer()
			reportPercentiles(b, d)
		})
	}
}
