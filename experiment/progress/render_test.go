package progress

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
			clock := time.Unix(0, 0)
			p := &Render{log: zerolog.New(&buf), now: func() time.Time { return clock }, start: clock, lastLog: clock}
			for k := 1; k <= tc.frames; k++ {
				clock = clock.Add(tc.perFrame)
				p.Frame(k, tc.most)
			}
			p.Finish(true)
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

// TestRenderProgressLine drives render's progress on a terminal of 80
// columns with a fake clock: an update every renderShowEvery, each from
// the line's start (\r) and within 79 columns, and the full line at the
// end of a render that succeeded.
func TestRenderProgressLine(t *testing.T) {
	var out strings.Builder
	clock := time.Unix(0, 0)
	p := &Render{now: func() time.Time { return clock }, start: clock, lastLog: clock,
		line: &Line{w: &out, width: func() int { return 80 }}}
	const frames = 500                // at 10 ms a frame: 5 s
	for k := 1; k <= frames-20; k++ { // its episodes end before the bound
		clock = clock.Add(10 * time.Millisecond)
		p.Frame(k, frames)
	}
	p.Finish(true)
	text := out.String()
	updates := strings.Split(strings.TrimSuffix(text, "\n"), "\r")[1:]
	if want := (frames - 20) / 20; len(updates) != want+1 || !strings.HasSuffix(text, "\n") || strings.Count(text, "\n") != 1 {
		t.Fatalf("%d updates, want %d and a final one, then one newline: %q", len(updates), want, text)
	}
	for _, u := range updates {
		if n := len([]rune(u)); n > 79 {
			t.Errorf("update of %d columns: %q", n, u)
		}
	}
	if last := updates[len(updates)-1]; !strings.HasPrefix(last, "rendering frame 480/500 [####################] 100% | ETA 0s | 100 f/s") {
		t.Errorf("last update %q", last)
	}
}
