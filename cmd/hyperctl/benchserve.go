package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/controller/service"
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

func us(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Nanoseconds())/1e3) }

func runBenchServe(cmd *cobra.Command, f *benchServeFlags) error {
	if f.rounds < 10 || f.chunks < 1 || f.rounds%f.chunks != 0 {
		return usagef("--rounds %d, --chunks %d: want rounds >= 10, a multiple of chunks >= 1", f.rounds, f.chunks)
	}
	res, err := service.Bench(cmd.Context(), service.BenchOptions{Dir: f.dir, Rounds: f.rounds, Chunks: f.chunks})
	if err != nil {
		return fmt.Errorf("bench serve: %w", err)
	}
	fsyncs, healths, rounds := res.Fdatasync, res.Health, res.Round

	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	fs50, h50, r50 := fsyncs.Percentile(0.5), healths.Percentile(0.5), rounds.Percentile(0.5)
	var b strings.Builder
	fmt.Fprintf(&b, "command: hyperctl %s\n\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&b, "disk: %s; load average at the end: %s; %d samples of each, in %d interleaved blocks\n\n", res.Disk, load, f.rounds, f.chunks)
	fmt.Fprintf(&b, "| measurement | p50 µs | p90 µs | p99 µs |\n|---|---|---|---|\n")
	for _, m := range []struct {
		name string
		l    service.Latencies
	}{{"fdatasync of 60 bytes into a preallocated block", fsyncs}, {"empty round trip (Health)", healths}, {"durable round (one Observe, next included)", rounds}} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", m.name, us(m.l.Percentile(0.5)), us(m.l.Percentile(0.9)), us(m.l.Percentile(0.99)))
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
