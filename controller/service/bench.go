package service

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"connectrpc.com/connect"
	"github.com/rs/zerolog"

	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
)

// BenchOptions says where and how long Bench measures.
type BenchOptions struct {
	// Dir is a folder on the disk to measure: a temporary folder is made
	// in it and removed ("": the system's temporary folder).
	Dir string
	// Rounds is the samples of each measurement, a multiple of Chunks.
	Rounds int
	// Chunks is the interleaved blocks the samples are taken in.
	Chunks int
}

// BenchResult is what Bench measured on the disk that holds its folder.
type BenchResult struct {
	// Fdatasync: a 60-byte write into a preallocated, already-synced
	// block, then fdatasync(2).
	Fdatasync Latencies
	// Health: the empty round trip over a kept-alive loopback connection.
	Health Latencies
	// Round: the durable one-request round, one Observe of a
	// hypercontroller session, its next suggestion included.
	Round Latencies
	// Disk names the file system measured: its source, type and mount
	// point.
	Disk string
}

// Latencies holds one measurement's samples.
type Latencies []time.Duration

// Percentile is the sample at the fraction p of the sorted samples (0.5:
// the median); l must not be empty.
func (l Latencies) Percentile(p float64) time.Duration {
	s := slices.Clone(l)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

// Bench measures, in one run and on the disk of o.Dir, a server with the
// default options (keep-awake on) in this process: the fdatasync a
// durable observation waits for, the empty round trip and the durable
// round, in o.Chunks interleaved blocks so that a change of load during
// the run affects the three alike.
func Bench(ctx context.Context, o BenchOptions) (BenchResult, error) {
	if o.Rounds < 1 || o.Chunks < 1 || o.Rounds%o.Chunks != 0 {
		return BenchResult{}, fmt.Errorf("rounds %d, chunks %d: want rounds a multiple of chunks >= 1", o.Rounds, o.Chunks)
	}
	parent := o.Dir
	if parent == "" {
		parent = os.TempDir()
	}
	dir, err := os.MkdirTemp(parent, "hyperctl-bench-serve-")
	if err != nil {
		return BenchResult{}, err
	}
	defer os.RemoveAll(dir)

	syncs, err := newSyncProbe(filepath.Join(dir, "probe"), o.Rounds)
	if err != nil {
		return BenchResult{}, err
	}
	defer syncs.close()
	srv, err := New(Options{StateDir: filepath.Join(dir, "state"), Log: zerolog.Nop()})
	if err != nil {
		return BenchResult{}, err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return BenchResult{}, err
	}
	hs := &http.Server{Handler: srv.Handler(HandlerOptions{}), ReadHeaderTimeout: DefaultHeaderTimeout}
	go hs.Serve(ln)
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
	defer tr.CloseIdleConnections()
	cl := hyperctlv1connect.NewControllerServiceClient(&http.Client{Transport: tr}, "http://"+ln.Addr().String())
	space := []*hyperctlv1.Param{{Name: "lr", Low: 1e-5, High: 1e-3, Scale: "log"}, {Name: "clip", Low: 0.1, High: 0.5}}
	if _, err := cl.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{SessionId: "bench", Space: space, Interval: 5})); err != nil {
		return BenchResult{}, err
	}
	if _, err := cl.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "bench"})); err != nil {
		return BenchResult{}, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var res BenchResult
	it, r := 0, 0.0
	per := o.Rounds / o.Chunks
	for range o.Chunks {
		for range per {
			d, err := syncs.next()
			if err != nil {
				return BenchResult{}, err
			}
			res.Fdatasync = append(res.Fdatasync, d)
		}
		for range per {
			t0 := time.Now()
			if _, err := cl.Health(ctx, connect.NewRequest(&hyperctlv1.HealthRequest{})); err != nil {
				return BenchResult{}, err
			}
			res.Health = append(res.Health, time.Since(t0))
		}
		for range per {
			r += rng.NormFloat64()
			t0 := time.Now()
			resp, err := cl.Observe(ctx, connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: "bench", Iteration: int32(it), Reward: r, Frames: 2048, ElapsedSeconds: 0.01}))
			if err != nil {
				return BenchResult{}, err
			}
			res.Round = append(res.Round, time.Since(t0))
			if resp.Msg.Next == nil {
				return BenchResult{}, errors.New("Observe returned no next suggestion")
			}
			it++
		}
	}
	res.Disk = diskOf(dir)
	return res, nil
}

// syncProbe times the log's durable append on its own: 60-byte records
// written into a file whose blocks were written and fsync'd beforehand,
// each followed by fdatasync(2), as the session log does.
type syncProbe struct {
	f   *os.File
	i   int
	buf []byte
}

func newSyncProbe(path string, n int) (*syncProbe, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(make([]byte, (n+1)*60)); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	buf := make([]byte, 60)
	for i := range buf {
		buf[i] = byte(i + 1)
	}
	return &syncProbe{f: f, buf: buf}, nil
}

func (p *syncProbe) next() (time.Duration, error) {
	t0 := time.Now()
	if _, err := p.f.WriteAt(p.buf, int64(p.i)*60); err != nil {
		return 0, err
	}
	if err := syscall.Fdatasync(int(p.f.Fd())); err != nil {
		return 0, fmt.Errorf("fdatasync: %w", err)
	}
	p.i++
	return time.Since(t0), nil
}

func (p *syncProbe) close() { p.f.Close() }

// diskOf names the file system holding dir: its mount's source, type and
// mount point (the longest matching line of /proc/mounts).
func diskOf(dir string) string {
	f, err := os.Open("/proc/mounts")
	if err != nil {
		return "unknown (no /proc/mounts)"
	}
	defer f.Close()
	best, name := "", "unknown"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) < 3 {
			continue
		}
		mp := fl[1]
		if (dir == mp || strings.HasPrefix(dir, strings.TrimSuffix(mp, "/")+"/")) && len(mp) >= len(best) {
			best, name = mp, fmt.Sprintf("%s (%s) mounted on %s", fl[0], fl[2], mp)
		}
	}
	return name
}
