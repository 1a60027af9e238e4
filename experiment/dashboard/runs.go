package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/population"
	"github.com/hyperctl/hyperctl/experiment/slurm"
)

// Runs is the Source of `hyperctl dashboard DIR`: every run folder under
// DIR (rundir.Runs: a single run, the runs of a compare, any folder of run
// folders, found recursively) and every compare matrix (a folder holding
// compare.json). States are the ones `hyperctl status` decides
// (matrix.Inspect): through slurm.Collect for a matrix's runs (a cell not
// started yet included), slurm.FolderStatus for a run outside any matrix. A folder of run folders
// that is neither (a population) lists its runs like any other.
//
// A compare matrix is found in DIR itself, in its subfolders, and in every
// folder above a run folder found; a compare submitted to Slurm whose runs
// have not started appears once it lies in one of those.
type Runs struct {
	root  string
	poll  time.Duration
	queue slurm.Runner

	scanMu sync.Mutex // one scan at a time: requests meanwhile wait for it and share it
	mu     sync.Mutex // guards the fields below
	last   *Overview
	lastAt time.Time
	dirs   map[string]string   // run id → its folder, from the last scan
	tables map[string]*table   // a log file → its table as last read
	idents map[string]identity // a config.toml → its identity as last read
}

// RunsOptions configure NewRuns.
type RunsOptions struct {
	// Poll is how often the page asks for the overview (default 2 s); one
	// scan of the folder serves every request within half of it.
	Poll time.Duration
	// Queue runs Slurm's squeue and scontrol for matrices submitted with
	// --backend slurm (nil: the commands on PATH). Their answers are reused
	// for queueTTL.
	Queue slurm.Runner
}

// queueTTL is how long an answer of Slurm's queue commands is reused.
const queueTTL = 15 * time.Second

// NewRuns returns the Source for the runs under root, which must be a
// folder.
func NewRuns(root string, o RunsOptions) (*Runs, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("dashboard: %s is a file; give the folder of a run, of a compare, or of any runs", root)
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Queue == nil {
		o.Queue = slurm.ExecRunner{}
	}
	return &Runs{
		root: filepath.Clean(root), poll: o.Poll, queue: &cachedRunner{inner: o.Queue, ttl: queueTTL, out: map[string]cachedOut{}},
		tables: map[string]*table{}, idents: map[string]identity{},
	}, nil
}

// runCharts are the charts of a runs dashboard, before the
// hyperparameters'.
func runCharts() []Chart {
	return []Chart{
		{Key: rundir.ColTrainReward, Table: "train", Title: "Training reward R_t (train_reward)", Label: "mean reward per step"},
		{Key: rundir.ColMeanEpisodeReturn, Table: "train", Title: "Mean episode return (mean_episode_return)", Label: "return of finished episodes"},
		{Key: rundir.ColEvalReturn, Table: "eval", Title: "Evaluation return (eval.csv)", Label: "deterministic return", Points: true},
	}
}

// Overview implements Source.
func (s *Runs) Overview(ctx context.Context) (*Overview, error) {
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	s.mu.Lock()
	if s.last != nil && time.Since(s.lastAt) < s.poll/2 {
		ov := s.last
		s.mu.Unlock()
		return ov, nil
	}
	s.mu.Unlock()
	ov, dirs := s.scan(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last, s.lastAt, s.dirs = ov, time.Now(), dirs
	// Forget the files of runs that are gone.
	keep := map[string]bool{}
	for _, d := range dirs {
		keep[d] = true
	}
	for p := range s.tables {
		if !keep[filepath.Dir(p)] {
			delete(s.tables, p)
		}
	}
	for p := range s.idents {
		if !keep[filepath.Dir(p)] {
			delete(s.idents, p)
		}
	}
	return ov, nil
}

// scan reads the folder: its runs and matrices, each run's state and
// progress. What cannot be read is listed in Problems.
func (s *Runs) scan(ctx context.Context) (*Overview, map[string]string) {
	ov := &Overview{
		Kind: "runs", Title: s.root, Group: "environment",
		X: Axis{Key: rundir.ColFrames, Label: "frames trained"}, Charts: runCharts(),
		PollMS: s.poll.Milliseconds(), Updated: time.Now().Format(time.RFC3339),
	}
	dirs := map[string]string{}
	found, err := rundir.Runs(s.root)
	if err != nil {
		ov.Problems = append(ov.Problems, err.Error())
	}
	// The folders that may hold a compare.json: the top, its subfolders,
	// and every folder above a run.
	cands := map[string]bool{s.root: true}
	if ents, err := os.ReadDir(s.root); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				cands[filepath.Join(s.root, e.Name())] = true
			}
		}
	}
	for _, f := range found {
		for d := filepath.Dir(f.Dir); len(d) > len(s.root) && strings.HasPrefix(d, s.root); d = filepath.Dir(d) {
			cands[d] = true
		}
	}
	var matrixDirs []string
	for d := range cands {
		if regularFile(filepath.Join(d, matrix.ManifestFile)) {
			matrixDirs = append(matrixDirs, d)
		}
	}
	sort.Strings(matrixDirs)
	covered := map[string]bool{}
	for _, d := range matrixDirs {
		m, runs, runDirs, err := s.readMatrix(ctx, d, &ov.Problems)
		if err != nil {
			ov.Problems = append(ov.Problems, err.Error())
			continue
		}
		for i, dir := range runDirs {
			covered[dir] = true
			dirs[runs[i].ID] = dir
		}
		ov.Matrices = append(ov.Matrices, m)
		ov.Runs = append(ov.Runs, runs...)
	}
	for _, f := range found {
		if covered[f.Dir] {
			continue
		}
		r, err := s.loneRun(f.Dir)
		if err != nil {
			ov.Problems = append(ov.Problems, err.Error())
		}
		dirs[r.ID] = f.Dir
		ov.Runs = append(ov.Runs, r)
	}
	nameAlike(ov.Runs, dirs)
	return ov, dirs
}

// nameAlike sets the Folder of the runs that share a collection,
// environment, controller and seed (train's -runN folders of one config),
// so that the page tells them apart by their folders' names.
func nameAlike(runs []Run, dirs map[string]string) {
	key := func(r Run) string {
		seed := "-"
		if r.Seed != nil {
			seed = fmt.Sprint(*r.Seed)
		}
		return strings.Join([]string{r.Collection, r.Env, r.Label, seed}, "\x00")
	}
	n := map[string]int{}
	for _, r := range runs {
		n[key(r)]++
	}
	for i, r := range runs {
		if n[key(r)] > 1 {
			runs[i].Folder = filepath.Base(dirs[r.ID])
		}
	}
}

// readMatrix reads the compare folder d: its manifest and the state of every
// cell, with each cell's folder. What it reads only in part goes to
// problems.
func (s *Runs) readMatrix(ctx context.Context, d string, problems *[]string) (Matrix, []Run, []string, error) {
	man, err := matrix.ReadManifest(d)
	if err != nil {
		return Matrix{}, nil, nil, fmt.Errorf("compare %s: %w", d, err)
	}
	st, err := slurm.Collect(ctx, d, man, s.queue)
	if err != nil {
		return Matrix{}, nil, nil, fmt.Errorf("compare %s: %w", d, err)
	}
	if err := population.MarkMembers(d, &st); err != nil {
		// The runs' own states stand; the page says why none is "pruned".
		*problems = append(*problems, fmt.Sprintf("population %s: its pruned and waiting members are shown as their folders say: %v", d, err))
	}
	coll := s.rel(d)
	// Named as report and status name them (a population's members with its size).
	ctrls := make([]string, len(man.Controllers))
	for i, c := range man.Controllers {
		ctrls[i] = matrix.CellName(d, man, c)
	}
	m := Matrix{ID: coll, Population: matrix.IsPopulation(d), Envs: man.Envs, Controllers: ctrls, Seeds: man.Seeds}
	if st.QueueErr != nil {
		m.QueueError = st.QueueErr.Error()
	}
	runs := make([]Run, 0, len(st.Runs))
	var runDirs []string
	for _, rs := range st.Runs {
		seed := rs.Seed
		r := Run{
			ID: joinID(coll, filepath.ToSlash(rs.Dir)), Env: rs.Env, Label: matrix.CellName(d, man, rs.Controller), Seed: &seed, Collection: coll,
			State: rs.StateName, Detail: rs.Detail, Done: rs.Done, Iterations: man.Iterations, Budget: man.Frames,
		}
		dir := filepath.Join(d, rs.Dir)
		s.progress(&r, dir)
		m.Runs = append(m.Runs, r.ID)
		runs = append(runs, r)
		runDirs = append(runDirs, dir)
	}
	return m, runs, runDirs, nil
}

// loneRun reads a run outside any matrix. The run is listed even when its
// config cannot be read; the error says why its names are missing.
func (s *Runs) loneRun(dir string) (Run, error) {
	r := Run{ID: s.rel(dir), Collection: s.rel(filepath.Dir(dir)), State: matrix.FolderStopped}
	if dir == s.root { // DIR is a run folder itself
		r.ID, r.Collection = ".", ""
	}
	rs, err := slurm.FolderStatus(dir)
	if err != nil {
		r.Detail = err.Error()
		return r, err
	}
	r.State, r.Detail, r.Done = matrix.FolderState(rs), rs.Detail, rs.Done
	id, err := s.identity(dir)
	if err != nil {
		r.Label = filepath.Base(dir)
		s.progress(&r, dir)
		return r, fmt.Errorf("run %s: %w", dir, err)
	}
	// Named as report names a run outside any matrix; in compare's layout
	// (<env>/hypercontroller@rl/seed0) its collection is the compare folder.
	env, label, seed, fromFolder := matrix.NameByConfig(dir, id)
	r.Env, r.Label, r.Seed, r.Iterations, r.Budget = env, label, &seed, id.Iterations, id.Frames
	if envDir := filepath.Dir(filepath.Dir(dir)); fromFolder && len(envDir) > len(s.root) {
		r.Collection = s.rel(filepath.Dir(envDir))
	}
	s.progress(&r, dir)
	return r, nil
}

// identity is a run's rundir.Identity, read once per config.toml version.
type identity struct {
	mod time.Time
	id  rundir.Identity
}

func (s *Runs) identity(dir string) (rundir.Identity, error) {
	path := filepath.Join(dir, rundir.ConfigFile)
	st, err := os.Stat(path)
	if err != nil {
		return rundir.Identity{}, err
	}
	s.mu.Lock()
	c, ok := s.idents[path]
	s.mu.Unlock()
	if ok && c.mod.Equal(st.ModTime()) {
		return c.id, nil
	}
	id, err := rundir.ReadIdentity(dir)
	if err != nil {
		return id, err
	}
	s.mu.Lock()
	s.idents[path] = identity{mod: st.ModTime(), id: id}
	s.mu.Unlock()
	return id, nil
}

// progress fills a run's frames (the last row of train.csv), the stamp of
// its tables and its generation, reading only the files' tails and sizes.
func (s *Runs) progress(r *Run, dir string) {
	if it, frames, ok := rundir.LastRow(dir); ok {
		r.Frames = frames
		r.Done = max(r.Done, it+1)
	}
	r.Stamp = fileStamp(filepath.Join(dir, rundir.TrainCSV)) + "/" + fileStamp(filepath.Join(dir, rundir.EvalCSV))
	if st, err := os.Stat(filepath.Join(dir, rundir.ConfigFile)); err == nil {
		r.Generation = strconv.FormatInt(st.ModTime().UnixNano(), 36)
	}
}

// fileStamp changes whenever the file is written: its size and time.
func fileStamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "-"
	}
	return strconv.FormatInt(st.Size(), 36) + "." + strconv.FormatInt(st.ModTime().UnixNano(), 36)
}

// Series implements Source.
func (s *Runs) Series(ctx context.Context, id string, from, evalFrom, maxRows int) (*Series, error) {
	s.mu.Lock()
	scanned := s.dirs != nil
	s.mu.Unlock()
	if !scanned {
		if _, err := s.Overview(ctx); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	dir, ok := s.dirs[id]
	s.mu.Unlock()
	if !ok {
		return nil, &RequestError{Status: http.StatusNotFound, Field: "id", Msg: fmt.Sprintf("no run %q under %s (/api/overview lists the runs)", id, s.root)}
	}
	ser := &Series{ID: id, From: from, EvalFrom: evalFrom, Train: map[string]Column{}, Eval: map[string]Column{}}
	if st, err := os.Stat(filepath.Join(dir, rundir.ConfigFile)); err == nil {
		ser.Generation = strconv.FormatInt(st.ModTime().UnixNano(), 36)
	}
	train, err := s.table(filepath.Join(dir, rundir.TrainCSV))
	if err != nil {
		return nil, err
	}
	eval, err := s.table(filepath.Join(dir, rundir.EvalCSV))
	if err != nil {
		return nil, err
	}
	if train != nil {
		ser.Rows = train.rows
		ser.Hyper = rundir.HyperColumns(train.header)
		keys := append([]string{rundir.ColIteration, rundir.ColFrames, rundir.ColTrainReward, rundir.ColObjective, rundir.ColMeanEpisodeReturn}, ser.Hyper...)
		train.slice(ser.Train, keys, from, maxRows)
	}
	if eval != nil {
		ser.EvalRows = eval.rows
		eval.slice(ser.Eval, []string{rundir.ColIteration, rundir.ColFrames, rundir.ColEvalReturn}, evalFrom, maxRows)
	}
	return ser, nil
}

// table is a run log as numbers, column by column (NaN: an empty field).
type table struct {
	size   int64
	mod    time.Time
	header []string
	cols   map[string]Column
	rows   int
}

// slice puts the rows [from, from+n) of the named columns into dst (the
// columns the table lacks are left out).
func (t *table) slice(dst map[string]Column, keys []string, from, n int) {
	lo, hi := min(from, t.rows), min(from+n, t.rows)
	for _, k := range keys {
		if c, ok := t.cols[k]; ok {
			dst[k] = c[lo:hi:hi]
		}
	}
}

// table reads a log through rundir.ReadLog, again only when the file
// changed (size or time); nil when the file does not exist yet.
func (s *Runs) table(path string) (*table, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	t := s.tables[path]
	s.mu.Unlock()
	if t != nil && t.size == st.Size() && t.mod.Equal(st.ModTime()) {
		return t, nil
	}
	l, err := rundir.ReadLog(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t = &table{size: st.Size(), mod: st.ModTime(), header: l.Header, cols: map[string]Column{}, rows: len(l.Rows)}
	for c, name := range l.Header {
		col := make(Column, len(l.Rows))
		for i := range l.Rows {
			if l.Field(i, c) == "" {
				col[i] = math.NaN()
				continue
			}
			if col[i], err = l.Float(i, c); err != nil {
				return nil, err
			}
		}
		t.cols[name] = col
	}
	s.mu.Lock()
	s.tables[path] = t
	s.mu.Unlock()
	return t, nil
}

// rel is a folder's id: its path below the root, slash-separated ("" for
// the root itself).
func (s *Runs) rel(dir string) string {
	r, err := filepath.Rel(s.root, dir)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, "../") {
		return ""
	}
	return filepath.ToSlash(r)
}

// joinID joins a collection's id and a path below it.
func joinID(coll, rel string) string {
	if coll == "" {
		return rel
	}
	if rel == "" {
		return coll + "/"
	}
	return coll + "/" + rel
}

func regularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// cachedRunner reuses the answers of Slurm's commands for ttl, so pages
// that poll every few seconds do not ask the queue as often.
type cachedRunner struct {
	inner slurm.Runner
	ttl   time.Duration
	mu    sync.Mutex
	out   map[string]cachedOut
}

type cachedOut struct {
	at  time.Time
	b   []byte
	err error
}

// LookPath implements slurm.Runner.
func (c *cachedRunner) LookPath(name string) error { return c.inner.LookPath(name) }

// Run implements slurm.Runner.
func (c *cachedRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	key := name + "\x00" + strings.Join(args, "\x00")
	c.mu.Lock()
	o, ok := c.out[key]
	c.mu.Unlock()
	if ok && time.Since(o.at) < c.ttl {
		return o.b, o.err
	}
	b, err := c.inner.Run(ctx, name, args...)
	c.mu.Lock()
	c.out[key] = cachedOut{at: time.Now(), b: b, err: err}
	c.mu.Unlock()
	return b, err
}
