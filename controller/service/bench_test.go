package service

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestBenchLatencies: the percentiles of a measurement are its sorted
// samples at the fraction asked, whatever their order.
func TestBenchLatencies(t *testing.T) {
	l := Latencies{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0, 1}, {0.5, 5}, {0.9, 9}, {0.99, 9}, {1, 10}} {
		if got := l.Percentile(c.p); got != c.want {
			t.Errorf("Percentile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if l[0] != 5 {
		t.Errorf("Percentile sorted the samples in place: %v", l)
	}
}

// TestBench: a short run takes every sample of the three measurements in
// the folder given, names its disk and leaves nothing behind; counts that
// do not split into the blocks are refused.
func TestBench(t *testing.T) {
	for _, c := range []struct {
		name           string
		rounds, chunks int
		wantErr        string
	}{
		{"two blocks", 12, 2, ""},
		{"one block", 5, 1, ""},
		{"rounds not a multiple of chunks", 5, 2, "rounds 5, chunks 2"},
		{"no chunks", 4, 0, "chunks 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			res, err := Bench(context.Background(), BenchOptions{Dir: dir, Rounds: c.rounds, Chunks: c.chunks})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one naming %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Fdatasync) != c.rounds || len(res.Health) != c.rounds || len(res.Round) != c.rounds || res.Disk == "" {
				t.Fatalf("%d, %d, %d samples, disk %q; want %d of each and a disk", len(res.Fdatasync), len(res.Health), len(res.Round), res.Disk, c.rounds)
			}
			if p := res.Round.Percentile(0.5); p <= 0 {
				t.Errorf("round p50 %v", p)
			}
			if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
				t.Errorf("left in the folder: %v (%v)", ents, err)
			}
		})
	}
}
