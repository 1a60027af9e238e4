package run

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/policy/video"
)

// Video sizes of the episodes recorded during training: half of `hyperctl
// render`'s default in each direction, which cuts the time a recording
// adds to a run (`render` of 1001 HalfCheetah frames took 24.9 s at
// 320×240 against 41.6 s at 640×480, back to back on the busy 2-core
// machine).
const (
	VideoWidth  = 320
	VideoHeight = 240
)

// DefaultVideoEvery records a video at every 10th evaluation.
const DefaultVideoEvery = 10

// VideoOptions ask Train to record an evaluation episode as a video
// (CleanRL's --capture-video) into the run folder's videos/ folder.
type VideoOptions struct {
	// Every records at evaluations 0, Every, 2·Every, … of the run
	// (counted from 0, as eval.csv's rows), and at the final one.
	Every int
}

// VideoName is the file of the video recorded after iteration it (0-based,
// as in eval.csv), inside rundir.VideosDir.
func VideoName(it int) string { return fmt.Sprintf("iter%06d.mp4", it) }

// videoIteration parses a VideoName; false for other names.
func videoIteration(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, "iter")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".mp4")
	if !ok {
		return 0, false
	}
	it, err := strconv.Atoi(s)
	return it, err == nil && it >= 0
}

// CheckVideo says, before a run starts, whether it can record videos of
// env: ffmpeg is on PATH and the environment can draw itself.
func CheckVideo(env string) error {
	if _, err := exec.LookPath(video.FFmpeg); err != nil {
		return &words.AdviceError{Msg: "{video}: ", Err: fmt.Errorf("%s not found on PATH (scripts/setup.sh installs Debian's ffmpeg): %w", video.FFmpeg, err)}
	}
	e, err := envs.Make(env)
	if err != nil {
		return &words.AdviceError{Msg: "{video}: ", Err: err}
	}
	defer e.Close()
	r, err := envs.NewRenderer(e, VideoWidth, VideoHeight)
	if err != nil {
		return &words.AdviceError{Msg: "{video}: ", Err: err}
	}
	return r.Close()
}

// videoRecorder records the videos of a run: one deterministic episode of
// the policy just evaluated, reset with the run's seed at every
// evaluation (so the videos show the same start), drawn by the renderer
// `hyperctl render` uses (package video).
type videoRecorder struct {
	dir   string // the run's videos folder
	every int
	seed  int64
	evals int // evaluations of the run before the next one
	log   zerolog.Logger
}

// openVideos prepares the videos of the run in out, which continues from
// iteration from (0 for a new run): it removes the videos of iterations at
// or after from, and unfinished recordings, which a killed run leaves (the
// resumed run redoes those evaluations and records them again), and counts
// the evaluations eval.csv keeps. Call it after rundir.OpenEvalLog has cut
// eval.csv to the checkpoint.
func openVideos(out string, from int, seed int64, o VideoOptions, log zerolog.Logger) (*videoRecorder, error) {
	if o.Every < 1 {
		return nil, fmt.Errorf("Options.Video.Every %d: want an integer >= 1", o.Every)
	}
	v := &videoRecorder{dir: filepath.Join(out, rundir.VideosDir), every: o.Every, seed: seed, log: log}
	if err := os.MkdirAll(v.dir, 0o755); err != nil {
		return nil, fmt.Errorf("videos: %w", err)
	}
	ents, err := os.ReadDir(v.dir)
	if err != nil {
		return nil, fmt.Errorf("videos: %w", err)
	}
	for _, e := range ents {
		it, isVideo := videoIteration(e.Name())
		stale := isVideo && it >= from
		unfinished := strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), ".tmp")
		if stale || unfinished {
			if err := os.Remove(filepath.Join(v.dir, e.Name())); err != nil {
				return nil, fmt.Errorf("videos: %w", err)
			}
		}
	}
	l, err := rundir.ReadLog(filepath.Join(out, rundir.EvalCSV))
	switch {
	case err == nil:
		v.evals = len(l.Rows)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("videos: %w", err)
	}
	return v, nil
}

// startVideos opens the run's videos when opts ask for them (nil
// otherwise). A continued run that recorded videos and is resumed without
// them gets a warning: its later evaluations will have none.
func startVideos(out string, reuse rundir.Plan, from int, seed int64, opts Options) (*videoRecorder, error) {
	if opts.Video == nil {
		if st, err := os.Stat(filepath.Join(out, rundir.VideosDir)); reuse == rundir.Continue && err == nil && st.IsDir() {
			opts.Log.Warn().Str("videos", filepath.Join(out, rundir.VideosDir)).
				Msg("this run recorded videos; resumed without recording them, it records none from here on")
		}
		return nil, nil
	}
	return openVideos(out, from, seed, *opts.Video, opts.Log)
}

// due reports whether the next evaluation is recorded; last marks the
// run's final evaluation.
func (v *videoRecorder) due(last bool) bool { return v.evals%v.every == 0 || last }

// evaluated records, when due, a video of p after the evaluation of
// iteration it, and counts the evaluation. The recording completes even if
// ctx is cancelled meanwhile (as the evaluation does), so a checkpoint
// never counts an evaluation whose video is missing.
func (v *videoRecorder) evaluated(ctx context.Context, it int, last bool, p func() (*policy.Policy, error)) error {
	defer func() { v.evals++ }()
	if !v.due(last) {
		return nil
	}
	pol, err := p()
	if err != nil {
		return fmt.Errorf("video: %w", err)
	}
	path := filepath.Join(v.dir, VideoName(it))
	res, err := video.Record(context.WithoutCancel(ctx), pol, path, video.Options{Width: VideoWidth, Height: VideoHeight, Episodes: 1, Seed: v.seed})
	if err != nil {
		return err
	}
	v.log.Info().Str("file", path).Int("evaluation", v.evals).Int("frames", res.Frames).Float64("return", res.Returns[0]).Msg("video")
	return nil
}
