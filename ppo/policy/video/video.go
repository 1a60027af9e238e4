// Package video records a policy acting in its environment: frames from the
// environment's renderer (envs.NewRenderer) are piped as raw RGB to Debian's
// ffmpeg, which encodes H.264 in an MP4 file.
package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// Encoder pipes frames to an ffmpeg process. The file appears at its path
// only when Close succeeds (ffmpeg writes a temporary file that is renamed).
type Encoder struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  bytes.Buffer
	path    string
	tmp     string
	w, h    int
	buf     []byte
	frames  int
	closed  bool
	waitErr error
}

// FFmpeg is the ffmpeg executable (looked up on PATH).
var FFmpeg = "ffmpeg"

// NewEncoder starts ffmpeg writing an H.264 MP4 (yuv420p, so any player
// reads it) of w×h frames at fps frames per second to path.
func NewEncoder(ctx context.Context, path string, w, h int, fps float64) (*Encoder, error) {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".mp4" {
		return nil, fmt.Errorf("video %s: want a .mp4 file", path)
	}
	if w < 2 || h < 2 || w%2 != 0 || h%2 != 0 {
		return nil, fmt.Errorf("video %s: size %dx%d, want even sizes (H.264 in yuv420p)", path, w, h)
	}
	if !(fps > 0) {
		return nil, fmt.Errorf("video %s: frame rate %v", path, fps)
	}
	bin, err := exec.LookPath(FFmpeg)
	if err != nil {
		return nil, fmt.Errorf("video: %s not found (scripts/setup.sh installs Debian's ffmpeg): %w", FFmpeg, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("video %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("video %s: %w", path, err)
	}
	tmp := f.Name()
	f.Close()
	// ffmpeg creates the file afresh, so the video's mode follows the
	// umask as other tools' outputs do (CreateTemp's 0600 would stay).
	if err := os.Remove(tmp); err != nil {
		return nil, fmt.Errorf("video %s: %w", path, err)
	}
	e := &Encoder{path: path, tmp: tmp, w: w, h: h, buf: make([]byte, 3*w*h)}
	e.cmd = exec.CommandContext(ctx, bin, "-hide_banner", "-loglevel", "error", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgb24", "-s", fmt.Sprintf("%dx%d", w, h),
		"-r", strconv.FormatFloat(fps, 'g', -1, 64), "-i", "-",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "medium", "-crf", "20",
		"-movflags", "+faststart", "-f", "mp4", tmp)
	e.cmd.Stderr = &e.stderr
	if e.stdin, err = e.cmd.StdinPipe(); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("video: %w", err)
	}
	if err := e.cmd.Start(); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("video: start %s: %w", bin, err)
	}
	return e, nil
}

// WriteFrame sends one frame (w×h).
func (e *Encoder) WriteFrame(img *image.RGBA) error {
	if e.closed {
		return errors.New("video: encoder is closed")
	}
	if b := img.Bounds(); b.Dx() != e.w || b.Dy() != e.h {
		return fmt.Errorf("video: frame is %dx%d, want %dx%d", b.Dx(), b.Dy(), e.w, e.h)
	}
	b := img.Bounds()
	k := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):]
		for x := 0; x < e.w; x++ {
			e.buf[k], e.buf[k+1], e.buf[k+2] = row[4*x], row[4*x+1], row[4*x+2]
			k += 3
		}
	}
	if _, err := e.stdin.Write(e.buf); err != nil {
		return fmt.Errorf("video: ffmpeg stopped reading frames: %w%s", err, e.tail())
	}
	e.frames++
	return nil
}

// Frames is the number of frames written.
func (e *Encoder) Frames() int { return e.frames }

func (e *Encoder) tail() string {
	s := strings.TrimSpace(e.stderr.String())
	if s == "" {
		return ""
	}
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return "; ffmpeg said: " + s
}

// Close finishes the file: ffmpeg ends the stream and the file is renamed
// into place. A video without frames is an error and leaves no file.
func (e *Encoder) Close() error {
	if e.closed {
		return e.waitErr
	}
	e.closed = true
	e.stdin.Close()
	err := e.cmd.Wait()
	switch {
	case err != nil:
		e.waitErr = fmt.Errorf("video %s: ffmpeg: %w%s", e.path, err, e.tail())
	case e.frames == 0:
		e.waitErr = fmt.Errorf("video %s: no frames", e.path)
	default:
		if err := os.Rename(e.tmp, e.path); err != nil {
			e.waitErr = fmt.Errorf("video %s: %w", e.path, err)
		}
	}
	if e.waitErr != nil {
		os.Remove(e.tmp)
	}
	return e.waitErr
}

// Abort stops ffmpeg and removes the unfinished file. After Close it does
// nothing.
func (e *Encoder) Abort() {
	if e.closed {
		return
	}
	e.closed = true
	e.stdin.Close()
	_ = e.cmd.Process.Kill()
	_ = e.cmd.Wait()
	os.Remove(e.tmp)
	e.waitErr = fmt.Errorf("video %s: aborted", e.path)
}

// ParseSize parses a frame size WIDTHxHEIGHT (x or X); ok is false
// unless both sizes are even numbers from 16 to 4096.
func ParseSize(s string) (w, h int, ok bool) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	var err error
	if ok {
		w, err = strconv.Atoi(a)
		if err == nil {
			h, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || w < 16 || h < 16 || w > 4096 || h > 4096 || w%2 != 0 || h%2 != 0 {
		return 0, 0, false
	}
	return w, h, true
}

// Options configure Record.
type Options struct {
	Width, Height int
	Episodes      int   // deterministic episodes, one after the other
	Seed          int64 // episode k is reset with Seed+k
	// StillPath, when set, receives the frame at StillStep of the first
	// episode as a PNG (the last frame when the episode is shorter).
	StillPath string
	StillStep int
	// Progress, when set, is called after every frame with the frames
	// drawn so far and the most the recording can have: one after each
	// reset and each step of Episodes episodes that run to the
	// environment's time limit (0 when it has none); the recording ends
	// sooner when an episode does.
	Progress func(done, most int)
}

// Result describes a recording.
type Result struct {
	Path    string    `json:"path"`
	Frames  int       `json:"frames"`
	FPS     float64   `json:"fps"`
	Width   int       `json:"width"`
	Height  int       `json:"height"`
	Returns []float64 `json:"returns"`
	Lengths []int     `json:"lengths"`
	// StillStep is the step the still shows (Options.StillStep, or the
	// first episode's last step when it is shorter).
	StillStep int `json:"still_step,omitempty"`
}

// errStillTaken stops the episode of a still without a video.
var errStillTaken = errors.New("video: the still is taken")

// Record renders p acting deterministically and encodes the frames to
// path: one frame after each reset and after every step, at the
// environment's real-time frame rate (envs.FrameRate). Each episode runs on
// a fresh instance of the environment, reset with Seed+k, so it is the
// episode `hyperctl eval` runs with that seed (see policy.Evaluate).
//
// With path "" it writes the still alone (StillPath is then required): it
// draws the first episode up to StillStep, every frame (MuJoCo's tracking
// camera moves a fifth of the way to its body per frame, so the still is
// the video's frame), and needs no ffmpeg; Result then has no returns.
func Record(ctx context.Context, p *policy.Policy, path string, o Options) (Result, error) {
	res := Result{Path: path, Width: o.Width, Height: o.Height}
	if o.Episodes < 1 {
		return res, fmt.Errorf("video: episodes = %d, want >= 1", o.Episodes)
	}
	if o.Seed < 0 {
		return res, fmt.Errorf("video: seed = %d, want >= 0", o.Seed)
	}
	stillOnly := path == ""
	if stillOnly && o.StillPath == "" {
		return res, errors.New("video: neither a video path nor a still path")
	}
	if stillOnly && o.StillStep < 0 {
		return res, fmt.Errorf("video: still step = %d, want >= 0", o.StillStep)
	}
	most := 0
	if spec, err := envs.Lookup(p.Meta.Env); err == nil && spec.MaxEpisodeSteps > 0 {
		most = o.Episodes * (spec.MaxEpisodeSteps + 1)
		if stillOnly {
			most = min(o.StillStep, spec.MaxEpisodeSteps) + 1
		}
	}
	var enc *Encoder
	defer func() {
		if enc != nil {
			enc.Abort() // after a failure: no partial video (a no-op after Close)
		}
	}()
	img := image.NewRGBA(image.Rect(0, 0, o.Width, o.Height))
	var still *image.RGBA
	for k := 0; k < o.Episodes; k++ {
		ret, n, err := func() (float64, int, error) {
			env, err := envs.Make(p.Meta.Env)
			if err != nil {
				return 0, 0, err
			}
			defer env.Close()
			r, err := envs.NewRenderer(env, o.Width, o.Height)
			if err != nil {
				return 0, 0, err
			}
			defer r.Close()
			res.FPS = envs.FrameRate(env)
			if enc == nil && !stillOnly {
				if enc, err = NewEncoder(ctx, path, o.Width, o.Height, res.FPS); err != nil {
					return 0, 0, err
				}
			}
			return policy.Episode(ctx, p, env, o.Seed+int64(k), func(step int) error {
				if err := r.Render(img); err != nil {
					return err
				}
				res.Frames++
				if o.Progress != nil {
					o.Progress(res.Frames, most)
				}
				if k == 0 && o.StillPath != "" && step <= o.StillStep {
					if still == nil {
						still = image.NewRGBA(img.Rect)
					}
					copy(still.Pix, img.Pix)
					res.StillStep = step
				}
				if stillOnly {
					if step >= o.StillStep {
						return errStillTaken
					}
					return nil
				}
				return enc.WriteFrame(img)
			})
		}()
		if stillOnly {
			if err != nil && !errors.Is(err, errStillTaken) {
				return res, fmt.Errorf("video: still: %w", err)
			}
			break
		}
		if err != nil {
			return res, fmt.Errorf("video: episode %d: %w", k, err)
		}
		res.Returns = append(res.Returns, ret)
		res.Lengths = append(res.Lengths, n)
	}
	if enc != nil {
		if err := enc.Close(); err != nil {
			return res, err
		}
	}
	if still != nil {
		var b bytes.Buffer
		if err := png.Encode(&b, still); err != nil {
			return res, fmt.Errorf("video: still: %w", err)
		}
		if err := safefile.WriteAtomic(o.StillPath, b.Bytes()); err != nil {
			return res, fmt.Errorf("video: still: %w", err)
		}
	}
	return res, nil
}
