package video_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/all"
	"github.com/hyperctl/hyperctl/envs/rendertest"
	"github.com/hyperctl/hyperctl/ppo/policy/policytest"
	"github.com/hyperctl/hyperctl/ppo/policy/video"
)

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is absent (scripts/setup.sh installs Debian's ffmpeg)", tool)
		}
	}
}

// probe returns ffprobe's frame count, width and height of a video.
func probe(t *testing.T, path string) (frames, w, h int) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=nb_read_frames,width,height,codec_name", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var res struct {
		Streams []struct {
			NbReadFrames string `json:"nb_read_frames"`
			Width        int
			Height       int
			CodecName    string `json:"codec_name"`
		}
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Streams) != 1 {
		t.Fatalf("ffprobe output %s: %v", out, err)
	}
	s := res.Streams[0]
	if s.CodecName != "h264" {
		t.Fatalf("codec %s, want h264", s.CodecName)
	}
	n, _ := strconv.Atoi(s.NbReadFrames)
	return n, s.Width, s.Height
}

// decode returns the video's frames, decoded by ffmpeg.
func decode(t *testing.T, path string, w, h int) []*image.RGBA {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg decode: %v", err)
	}
	size := 4 * w * h
	if len(out)%size != 0 {
		t.Fatalf("decoded %d bytes, not a multiple of a %dx%d frame", len(out), w, h)
	}
	var frames []*image.RGBA
	for off := 0; off < len(out); off += size {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		copy(img.Pix, out[off:off+size])
		frames = append(frames, img)
	}
	return frames
}

// TestRecord records one deterministic episode of a random policy per
// renderer kind (MuJoCo's offscreen renderer: Reacher, 50 steps; the 2-D
// rasteriser: BipedalWalker, cut by the policy falling or the time limit)
// and checks the file with ffprobe and by decoding it: the frame count is
// steps + 1, the size is as asked, no frame is blank and consecutive frames
// differ while the body moves.
func TestRecord(t *testing.T) {
	need(t, "ffmpeg", "ffprobe")
	for _, tc := range []struct {
		env  string
		w, h int
	}{
		{"reacher", 160, 120},
		{"bipedalwalker", 240, 160},
	} {
		t.Run(tc.env, func(t *testing.T) {
			spec, err := envs.Lookup(tc.env)
			if err != nil {
				t.Fatal(err)
			}
			p := policytest.ForEnv(spec, 3)
			dir := t.TempDir()
			path := filepath.Join(dir, "out.mp4")
			still := filepath.Join(dir, "still.png")
			var calls, lastDone, most int
			progress := func(done, m int) { calls, lastDone, most = calls+1, done, m }
			res, err := video.Record(context.Background(), p, path, video.Options{Width: tc.w, Height: tc.h, Episodes: 1, Seed: 2, StillPath: still, StillStep: 10, Progress: progress})
			if err != nil {
				t.Fatal(err)
			}
			if res.Frames != res.Lengths[0]+1 {
				t.Fatalf("%d frames for %d steps, want steps + 1", res.Frames, res.Lengths[0])
			}
			if calls != res.Frames || lastDone != res.Frames || most != spec.MaxEpisodeSteps+1 {
				t.Fatalf("Progress: %d calls, last (%d, %d); want %d calls, last (%d, %d)", calls, lastDone, most, res.Frames, res.Frames, spec.MaxEpisodeSteps+1)
			}
			frames, w, h := probe(t, path)
			if frames != res.Frames || w != tc.w || h != tc.h {
				t.Fatalf("ffprobe: %d frames of %dx%d, want %d of %dx%d", frames, w, h, res.Frames, tc.w, tc.h)
			}
			dec := decode(t, path, w, h)
			if len(dec) != frames {
				t.Fatalf("decoded %d frames, ffprobe counted %d", len(dec), frames)
			}
			moving := 0
			for k, img := range dec {
				var prev *image.RGBA
				if k > 0 {
					prev = dec[k-1]
				}
				v, d := rendertest.Stats(img, prev)
				if v < rendertest.MinVariance {
					t.Fatalf("frame %d: grey variance %.1f (blank)", k, v)
				}
				if d > rendertest.MinDiff {
					moving++
				}
			}
			t.Logf("%s: %d frames of %dx%d at %g fps, %d of %d consecutive pairs differ, return %.2f", tc.env, frames, w, h, res.FPS, moving, frames-1, res.Returns[0])
			if moving < (frames-1)*2/3 {
				t.Fatalf("only %d of %d consecutive frame pairs differ", moving, frames-1)
			}
			b, err := os.ReadFile(still)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil || img.Bounds().Dx() != tc.w {
				t.Fatalf("still: %v, bounds %v", err, img.Bounds())
			}
		})
	}
}

func TestEncoderRefusesBadInput(t *testing.T) {
	need(t, "ffmpeg")
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := video.NewEncoder(ctx, filepath.Join(dir, "a.avi"), 64, 48, 20); err == nil {
		t.Fatal("a .avi path was accepted")
	}
	if _, err := video.NewEncoder(ctx, filepath.Join(dir, "a.mp4"), 63, 48, 20); err == nil {
		t.Fatal("an odd width was accepted")
	}
	e, err := video.NewEncoder(ctx, filepath.Join(dir, "a.mp4"), 64, 48, 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.WriteFrame(image.NewRGBA(image.Rect(0, 0, 32, 48))); err == nil {
		t.Fatal("a 32x48 frame was accepted")
	}
	if err := e.Close(); err == nil {
		t.Fatal("a video without frames was accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.mp4")); !os.IsNotExist(err) {
		t.Fatalf("a failed video left a file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

func TestRecordFailureLeavesNoFile(t *testing.T) {
	need(t, "ffmpeg")
	spec, err := envs.Lookup("reacher")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the episode stops at its first context check
	_, err = video.Record(ctx, policytest.ForEnv(spec, 1), filepath.Join(dir, "x.mp4"), video.Options{Width: 64, Height: 48, Episodes: 1})
	if err == nil {
		t.Fatal("a cancelled recording succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files left after a failed recording: %v", ents)
	}
}

// TestStillAlone takes a still without a video (path ""): with ffmpeg
// unreachable it still works, draws exactly the frames up to the still's
// step, reports them through Progress with the right bound, and writes the
// very PNG that the same still taken with a video has.
func TestStillAlone(t *testing.T) {
	need(t, "ffmpeg")
	for _, tc := range []struct {
		env       string
		stillStep int
		wantStep  int // the step the still shows
		wantMost  int // Progress's bound: the still's step + 1, capped by the time limit
	}{
		{"reacher", 10, 10, 11},
		{"reacher", 500, 50, 51}, // past the 50-step time limit: the last frame
		{"halfcheetah", 0, 0, 1},
	} {
		t.Run(tc.env+"-"+strconv.Itoa(tc.stillStep), func(t *testing.T) {
			spec, err := envs.Lookup(tc.env)
			if err != nil {
				t.Fatal(err)
			}
			p := policytest.ForEnv(spec, 4)
			dir := t.TempDir()
			withVideo := filepath.Join(dir, "with.png")
			o := video.Options{Width: 96, Height: 64, Episodes: 1, Seed: 3, StillPath: withVideo, StillStep: tc.stillStep}
			if _, err := video.Record(context.Background(), p, filepath.Join(dir, "v.mp4"), o); err != nil {
				t.Fatal(err)
			}

			saved := video.FFmpeg
			video.FFmpeg = "hyperctl-no-such-ffmpeg"
			defer func() { video.FFmpeg = saved }()
			alone := filepath.Join(dir, "alone.png")
			o.StillPath = alone
			var calls, lastDone, most int
			o.Progress = func(done, m int) { calls, lastDone, most = calls+1, done, m }
			res, err := video.Record(context.Background(), p, "", o)
			if err != nil {
				t.Fatal(err)
			}
			if res.StillStep != tc.wantStep || res.Frames != tc.wantStep+1 || len(res.Returns) != 0 {
				t.Fatalf("still at step %d, %d frames, returns %v; want step %d, %d frames, no returns", res.StillStep, res.Frames, res.Returns, tc.wantStep, tc.wantStep+1)
			}
			if calls != res.Frames || lastDone != res.Frames || most != tc.wantMost {
				t.Fatalf("Progress: %d calls, last (%d, %d); want %d calls, last (%d, %d)", calls, lastDone, most, res.Frames, res.Frames, tc.wantMost)
			}
			a, err1 := os.ReadFile(withVideo)
			b, err2 := os.ReadFile(alone)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !bytes.Equal(a, b) {
				t.Fatal("the still alone differs from the still taken with the video")
			}
			if _, err := os.Stat(filepath.Join(dir, "alone.mp4")); !os.IsNotExist(err) {
				t.Fatalf("a still alone wrote a video: %v", err)
			}
		})
	}
	spec, err := envs.Lookup("reacher")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := video.Record(context.Background(), policytest.ForEnv(spec, 1), "", video.Options{Width: 64, Height: 48, Episodes: 1}); err == nil {
		t.Fatal("neither a video nor a still was accepted")
	}
}

// ParseSize takes WIDTHxHEIGHT (x or X) with even sizes from 16 to 4096.
func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		w, h int
		ok   bool
	}{
		{"640x480", 640, 480, true},
		{"16X4096", 16, 4096, true},
		{"641x480", 0, 0, false},
		{"14x480", 0, 0, false},
		{"640x4098", 0, 0, false},
		{"640", 0, 0, false},
		{"ax480", 0, 0, false},
	} {
		if w, h, ok := video.ParseSize(c.in); w != c.w || h != c.h || ok != c.ok {
			t.Errorf("ParseSize(%q) = %d, %d, %v; want %d, %d, %v", c.in, w, h, ok, c.w, c.h, c.ok)
		}
	}
}
