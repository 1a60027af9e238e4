package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo/policy/video"
)

// videos lists the files of a run's videos folder.
func videos(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, rundir.VideosDir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func needFFmpeg(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is absent (scripts/setup.sh installs Debian's ffmpeg)")
	}
}

// TestCaptureVideoSchedule checks which evaluations get a video: 8
// iterations, an evaluation after iterations 1, 3, 5 and 7 (evaluations 0
// to 3), every K-th counted from 0, and the final one.
func TestCaptureVideoSchedule(t *testing.T) {
	needFFmpeg(t)
	for _, tc := range []struct {
		every int
		want  []string
	}{
		{1, []string{"iter000001.mp4", "iter000003.mp4", "iter000005.mp4", "iter000007.mp4"}},
		{2, []string{"iter000001.mp4", "iter000005.mp4", "iter000007.mp4"}},
		{3, []string{"iter000001.mp4", "iter000007.mp4"}},
		{10, []string{"iter000001.mp4", "iter000007.mp4"}},
	} {
		t.Run(fmt.Sprintf("every%d", tc.every), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			run := resumeConfig(t, "reacher", "fixed", "")
			if err := train(t, run, Options{Out: dir, Video: &VideoOptions{Every: tc.every}}); err != nil {
				t.Fatal(err)
			}
			if got := videos(t, dir); !slices.Equal(got, tc.want) {
				t.Fatalf("every %d: videos %v, want %v", tc.every, got, tc.want)
			}
		})
	}
}

// TestCaptureVideoLeavesTrainingAlone: a run that records videos writes
// train.csv and eval.csv identical to the same run without them (timing
// columns aside) and the same policies; killed after iteration 6 (its
// checkpoint at 4, a video of iteration 5 and an unfinished recording on
// disk) and resumed, it ends with the same videos, byte for byte, none
// missing and none twice.
func TestCaptureVideoLeavesTrainingAlone(t *testing.T) {
	needFFmpeg(t)
	run := resumeConfig(t, "reacher", "hypercontroller", "")
	run.CheckpointEvery = 4
	root := t.TempDir()
	plain, withVideo, killed := filepath.Join(root, "plain"), filepath.Join(root, "video"), filepath.Join(root, "killed")
	if err := train(t, run, Options{Out: plain}); err != nil {
		t.Fatal(err)
	}
	vo := &VideoOptions{Every: 2}
	copied := false
	err := train(t, run, Options{Out: withVideo, Video: vo, Monitor: hookMonitor{at: func(p rundir.Progress) {
		if p.Iteration == 6 {
			copyDir(t, withVideo, killed)
			copied = true
		}
	}}})
	if err != nil || !copied {
		t.Fatalf("run with videos: %v (copied %v)", err, copied)
	}
	ts, tt := sameRows(t, withVideo, plain, rundir.TrainCSV)
	es, et := sameRows(t, withVideo, plain, rundir.EvalCSV)
	samePolicies(t, withVideo, plain)
	want := []string{"iter000001.mp4", "iter000005.mp4", "iter000007.mp4"}
	if got := videos(t, withVideo); !slices.Equal(got, want) {
		t.Fatalf("videos %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(plain, rundir.VideosDir)); !os.IsNotExist(err) {
		t.Fatalf("the run without --capture-video has a videos folder: %v", err)
	}
	t.Logf("with videos against without: train.csv %d/%d, eval.csv %d/%d rows identical", ts, tt, es, et)

	// The killed copy: checkpoint at 4, the video of iteration 5 from the
	// lost segment, and an unfinished recording.
	if got := videos(t, killed); !slices.Equal(got, want[:2]) {
		t.Fatalf("killed copy: videos %v, want %v", got, want[:2])
	}
	stale := filepath.Join(killed, rundir.VideosDir, VideoName(5))
	if err := os.WriteFile(stale, []byte("from the lost segment"), 0o644); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(killed, rundir.VideosDir, "."+VideoName(7)+".123.tmp")
	if err := os.WriteFile(torn, []byte("unfinished"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := train(t, run, Options{Out: killed, Resume: true, Video: vo}); err != nil {
		t.Fatal(err)
	}
	if got := videos(t, killed); !slices.Equal(got, want) {
		t.Fatalf("resumed: videos %v, want %v", got, want)
	}
	for _, name := range want {
		a, err1 := os.ReadFile(filepath.Join(killed, rundir.VideosDir, name))
		b, err2 := os.ReadFile(filepath.Join(withVideo, rundir.VideosDir, name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("resumed %s differs from the uninterrupted run's (%v, %v)", name, err1, err2)
		}
	}
	sameRows(t, killed, plain, rundir.TrainCSV)
	sameRows(t, killed, plain, rundir.EvalCSV)
}

// TestCaptureVideoWithoutFFmpeg: without ffmpeg on PATH, Options.Video
// is refused before the run writes anything, naming ffmpeg, and the
// command line names its flag instead.
func TestCaptureVideoWithoutFFmpeg(t *testing.T) {
	saved := video.FFmpeg
	video.FFmpeg = "hyperctl-no-such-ffmpeg"
	defer func() { video.FFmpeg = saved }()
	dir := filepath.Join(t.TempDir(), "run")
	err := train(t, resumeConfig(t, "reacher", "fixed", ""), Options{Out: dir, Video: &VideoOptions{Every: 1}})
	if err == nil || !strings.Contains(err.Error(), "Options.Video: hyperctl-no-such-ffmpeg not found on PATH") {
		t.Fatalf("error %v, want one naming Options.Video and ffmpeg", err)
	}
	if s := words.Say(err, words.Words{Video: "--capture-video"}); !strings.Contains(s, "train: --capture-video: hyperctl-no-such-ffmpeg not found on PATH") {
		t.Fatalf("in flags %q, want --capture-video naming ffmpeg", s)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 1 || (len(ents) == 1 && ents[0].Name() != rundir.LockFile) {
		t.Fatalf("the refused run wrote %v", ents)
	}
}

// TestResumeWithoutVideoWarns: a run that recorded videos, resumed
// without --capture-video, warns that the rest records none.
func TestResumeWithoutVideoWarns(t *testing.T) {
	needFFmpeg(t)
	run := resumeConfig(t, "reacher", "fixed", "")
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Train(ctx, plan(t, run), Options{Out: dir, Log: zerolog.Nop(), Video: &VideoOptions{Every: 1}, Monitor: hookMonitor{at: func(p rundir.Progress) {
		if p.Iteration == 4 {
			cancel()
		}
	}}})
	if err == nil || !strings.Contains(err.Error(), "checkpoint written") {
		t.Fatalf("stopped run: %v", err)
	}
	if got, want := videos(t, dir), []string{"iter000001.mp4", "iter000003.mp4"}; !slices.Equal(got, want) {
		t.Fatalf("stopped after iteration 4: videos %v, want %v", got, want)
	}
	var logBuf bytes.Buffer
	if _, err := Train(context.Background(), plan(t, run), Options{Out: dir, Resume: true, Log: zerolog.New(&logBuf)}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logBuf.String(), "resumed without recording them, it records none from here on") {
		t.Fatalf("no warning in the log:\n%s", logBuf.String())
	}
	if got, want := videos(t, dir), []string{"iter000001.mp4", "iter000003.mp4"}; !slices.Equal(got, want) {
		t.Fatalf("resumed without videos: videos %v, want %v", got, want)
	}
}
