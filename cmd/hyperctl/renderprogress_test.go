package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestRenderProgressLogs drives render's progress off a terminal with a
// fake clock: a log line every renderLogEvery of rendering, none for a
// render shorter than that, each with the frames, the bound and the rate.
func TestRenderProgressLogs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		frames    int
		perFrame  time.Duration
		most      int
		wantLines int
	}{
		{"short render: no line", 51, 20 * time.Millisecond, 51, 0},
		{"1001 frames at 40 ms: one line per 5 s", 1001, 40 * time.Millisecond, 1001, 8},
		{"no time limit", 300, 50 * time.Millisecond, 0, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			a := &app{log: zerolog.New(&buf)}
			clock := time.Unix(0, 0)
			p := &renderProgress{a: a, now: func() time.Time { return clock }, start: clock, lastLog: clock}
			for k := 1; k <= tc.frames; k++ {
				clock = clock.Add(tc.perFrame)
				p.frame(k, tc.most)
			}
			p.finish(true)
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if buf.Len() == 0 {
				lines = nil
			}
			if len(lines) != tc.wantLines {
				t.Fatalf("%d log lines, want %d:\n%s", len(lines), tc.wantLines, buf.String())
			}
			for i, l := range lines {
				var ev struct {
					Msg    string  `json:"message"`
					Frames int     `json:"frames"`
					Most   int     `json:"of_at_most"`
					Rate   float64 `json:"frames_per_s"`
				}
				if err := json.Unmarshal([]byte(l), &ev); err != nil {
					t.Fatal(err)
				}
				wantFrames := int(time.Duration(i+1) * renderLogEvery / tc.perFrame)
				wantRate := float64(time.Second / tc.perFrame)
				if ev.Msg != "rendering" || ev.Frames != wantFrames || ev.Most != tc.most || ev.Rate != wantRate {
					t.Errorf("line %d: %+v, want rendering, %d frames of at most %d, %g frames/s", i, ev, wantFrames, tc.most, wantRate)
				}
			}
		})
	}
}
