package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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
	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/controller/service"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
)

type benchServeFlags struct {
	dir    string
	rounds int
	chunks int
	out    string
}

func newBenchServeCmd(a *app) *cobra.Command {
	f := &benchServeFlags{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Latency of a durable `hyperctl serve` round, as a multiple of this disk's fdatasync",
		Long: `serve measures, in one run and on the disk that holds --dir, three things:

  fdatasync   a 60-byte write into a preallocated, already-synced block, then
              fdatasync(2): the flush every acknowledged observation waits for
  Health      the empty round trip: one Health request over a kept-alive
              loopback connection (HTTP/1.1, binary protobuf)
  round       the durable one-request round: one Observe of a hypercontroller
              session, applied, appended and fdatasync'd before its reply,
              which carries the next suggestion

and reports the round's p50 as a multiple of the fdatasync's p50, the ratio
that carries over between machines (an absolute latency mostly measures the
disk). The three are measured in --chunks interleaved blocks, so that a
change of load during the run affects them alike. The server runs in this
process with hyperctl serve's defaults (keep-awake on); give --dir on the
disk --state will use.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runBenchServe(cmd, f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.dir, "dir", "", "folder on the disk to measure (a temporary folder is made in it and removed); default: the system's temporary folder")
	fl.IntVar(&f.rounds, "rounds", 2000, "samples of each measurement")
	fl.IntVar(&f.chunks, "chunks", 4, "interleaved blocks the samples are taken in")
	fl.StringVar(&f.out, "out", "", "also write the report (Markdown, with the command) to this file")
	return c
}

// latencies holds one measurement's samples.
type latencies []time.Duration

func (l latencies) pct(p float64) time.Duration {
	s := slices.Clone(l)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

func us(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Nanoseconds())/1e3) }

func runBenchServe(cmd *cobra.Command, f *benchServeFlags) error {
	if f.rounds < 10 || f.chunks < 1 || f.rounds%f.chunks != 0 {
		return usagef("--rounds %d, --chunks %d: want rounds >= 10, a multiple of chunks >= 1", f.rounds, f.chunks)
	}
	parent := f.dir
	if parent == "" {
		parent = os.TempDir()
	}
	dir, err := os.MkdirTemp(parent, "hyperctl-bench-serve-")
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	defer os.RemoveAll(dir)

	syncs, err := newSyncProbe(filepath.Join(dir, "probe"), f.rounds)
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	defer syncs.close()
	srv, err := service.New(service.Options{StateDir: filepath.Join(dir, "state"), Log: zerolog.Nop()})
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	hs := &http.Server{Handler: srv.Handler(service.HandlerOptions{}), ReadHeaderTimeout: service.DefaultHeaderTimeout}
	go hs.Serve(ln)
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
	defer tr.CloseIdleConnections()
	cl := hyperctlv1connect.NewControllerServiceClient(&http.Client{Transport: tr}, "http://"+ln.Addr().String())
	ctx := cmd.Context()
	space := []*hyperctlv1.Param{{Name: "lr", Low: 1e-5, High: 1e-3, Scale: "log"}, {Name: "clip", Low: 0.1, High: 0.5}}
	if _, err := cl.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{SessionId: "bench", Space: space, Interval: 5})); err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	if _, err := cl.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "bench"})); err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var fsyncs, healths, rounds latencies
	it, r := 0, 0.0
	per := f.rounds / f.chunks
	for range f.chunks {
		for range per {
			d, err := syncs.next()
			if err != nil {
				return fmt.Errorf("bench serve: %w", err)
			}
			fsyncs = append(fsyncs, d)
		}
		for range per {
			t0 := time.Now()
			if _, err := cl.Health(ctx, connect.NewRequest(&hyperctlv1.HealthRequest{})); err != nil {
				return fmt.Errorf("bench serve: %w", err)
			}
			healths = append(healths, time.Since(t0))
		}
		for range per {
			r += rng.NormFloat64()
			t0 := time.Now()
			resp, err := cl.Observe(ctx, connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: "bench", Iteration: int32(it), Reward: r, Frames: 2048, ElapsedSeconds: 0.01}))
			if err != nil {
				return fmt.Errorf("bench serve: %w", err)
			}
			rounds = append(rounds, time.Since(t0))
			if resp.Msg.Next == nil {
				return errors.New("bench serve: Observe returned no next suggestion")
			}
			it++
		}
	}

	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	fs50, h50, r50 := fsyncs.pct(0.5), healths.pct(0.5), rounds.pct(0.5)
	var b strings.Builder
	fmt.Fprintf(&b, "command: hyperctl %s\n\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&b, "disk: %s; load average at the end: %s; %d samples of each, in %d interleaved blocks\n\n", diskOf(dir), load, f.rounds, f.chunks)
	fmt.Fprintf(&b, "| measurement | p50 µs | p90 µs | p99 µs |\n|---|---|---|---|\n")
	for _, m := range []struct {
		name string
		l    latencies
	}{{"fdatasync of 60 bytes into a preallocated block", fsyncs}, {"empty round trip (Health)", healths}, {"durable round (one Observe, next included)", rounds}} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", m.name, us(m.l.pct(0.5)), us(m.l.pct(0.9)), us(m.l.pct(0.99)))
	}
	fmt.Fprintf(&b, "\n**durable round p50 = %.2f × fdatasync p50** (%s µs / %s µs); round − Health = %.2f × fdatasync\n",
		float64(r50)/float64(fs50), us(r50), us(fs50), float64(r50-h50)/float64(fs50))
	w := cmd.OutOrStdout()
	io.WriteString(w, b.String())
	if f.out != "" {
		if err := os.WriteFile(f.out, []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("bench serve: %w", err)
		}
	}
	return nil
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
