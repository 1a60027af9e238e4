package population

import (
	"fmt"
	"path/filepath"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// ScoreEpisodes is how many of its latest training episodes a member's
// score averages, at least (Jaderberg et al. rank agents by "the last 10
// episodic rewards"; Ray Tune's RLlib trials by the mean return of recent
// episodes).
const ScoreEpisodes = 10

// Ready is a member at a ready point.
type Ready struct {
	Frames   int64   // frames collected
	Score    float64 // the mean return of its latest training episodes
	Episodes int     // how many episodes Score averages
}

// Score reads a member's run folder at a ready point: its frames (the last
// row of train.csv) and its score, the mean return of its latest training
// episodes. train.csv gives per iteration the episodes that finished and
// their mean return, so whole rows are taken from the last back until they
// hold ScoreEpisodes episodes (or the run's first row), and their returns
// are averaged weighted by their episodes. After an exploit the rows before
// the copy are the donor's: the history of the weights the member carries.
// A run without a finished episode has no score; the error says so, and
// to raise the frames per generation (a words.Worded error).
func Score(dir string) (Ready, error) {
	l, err := rundir.ReadLog(filepath.Join(dir, rundir.TrainCSV))
	if err != nil {
		return Ready{}, fmt.Errorf("score: %w", err)
	}
	cf, err1 := l.Col(rundir.ColFrames)
	ce, err2 := l.Col(rundir.ColEpisodes)
	cr, err3 := l.Col(rundir.ColMeanEpisodeReturn)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return Ready{}, fmt.Errorf("score: %w", err)
		}
	}
	n := len(l.Rows)
	if n == 0 {
		return Ready{}, fmt.Errorf("score: %s has no rows", l.Path)
	}
	fr, err := l.Float(n-1, cf)
	if err != nil {
		return Ready{}, fmt.Errorf("score: %w", err)
	}
	r := Ready{Frames: int64(fr)}
	var sum float64
	for i := n - 1; i >= 0 && r.Episodes < ScoreEpisodes; i-- {
		e, err := l.Int(i, ce)
		if err != nil {
			return Ready{}, fmt.Errorf("score: %w", err)
		}
		if e == 0 {
			continue
		}
		m, err := l.Float(i, cr)
		if err != nil {
			return Ready{}, fmt.Errorf("score: %w", err)
		}
		sum += m * float64(e)
		r.Episodes += e
	}
	if r.Episodes == 0 {
		return Ready{}, &words.AdviceError{Msg: fmt.Sprintf("score: %s: no training episode finished in %d frames, so the member has no score; raise {ready} (or the batch size)", dir, r.Frames)}
	}
	r.Score = sum / float64(r.Episodes)
	if !finite(r.Score) {
		return Ready{}, fmt.Errorf("score: %s: the mean episode return is %v", dir, r.Score)
	}
	return r, nil
}
