package matrix

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// Cell is one run of a matrix: an environment, a controller entry (NAME or
// NAME@PRESET) and a seed.
type Cell struct {
	Env, Controller string
	Seed            int64
}

// Dir is the cell's run folder relative to the compare folder.
func (c Cell) Dir() string { return RunDir(c.Env, c.Controller, c.Seed) }

// String names the cell as its folder does: env/controller/seedN.
func (c Cell) String() string { return filepath.ToSlash(c.Dir()) }

// RunDir is a run's folder relative to its compare folder:
// <env>/<controller>/seed<N>, the controller being the matrix's entry (NAME
// or NAME@PRESET).
func RunDir(env, ctrl string, seed int64) string {
	return filepath.Join(env, ctrl, fmt.Sprintf("seed%d", seed))
}

// ParseRunDir splits a folder whose last three folders are a compare's
// <env>/<variant>/seed<N>.
func ParseRunDir(dir string) (env, variant string, seed int64, ok bool) {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(dir)), "/")
	if len(parts) < 3 {
		return "", "", 0, false
	}
	n, ok := strings.CutPrefix(parts[len(parts)-1], "seed")
	sd, err := strconv.ParseInt(n, 10, 64)
	if !ok || err != nil {
		return "", "", 0, false
	}
	return parts[len(parts)-3], parts[len(parts)-2], sd, true
}

// TrainDir is `hyperctl train`'s default folder name for a run:
// <env>-<variant>-seed<N>, the variant being NAME or NAME@PRESET.
func TrainDir(env, variant string, seed int64) string {
	return fmt.Sprintf("%s-%s-seed%d", env, variant, seed)
}

// SplitVariant splits a --controllers entry NAME@PRESET into the
// controller's name and its presets ("" without @).
func SplitVariant(entry string) (name, preset string) {
	name, preset, _ = strings.Cut(entry, "@")
	return name, preset
}

// Matrices caches the compare.json files read while naming runs, by
// folder (nil: the folder has none).
type Matrices map[string]*Manifest

// at returns the matrix of the compare folder d (nil: none).
func (ms Matrices) at(d string) (*Manifest, error) {
	if m, ok := ms[d]; ok {
		return m, nil
	}
	m, err := ReadManifest(d)
	if errors.Is(err, fs.ErrNotExist) {
		ms[d] = nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err) // the names are report's, also in status
	}
	ms[d] = &m
	return &m, nil
}

// RunName names the run in dir, a folder in root or below it: by the
// matrix of the compare folder it is a cell of (<env>/<controller>/seed<N>
// with all three in the matrix of the compare folder three levels up),
// else by its config.toml and folder name (NameByConfig). A population's
// members, whose config.toml after an exploit is the donor's, are named
// this way by their matrix, with their population's size (CellName). An
// unreadable compare.json is an error naming
// it.
func (ms Matrices) RunName(root, dir string) (env, ctrl string, seed int64, err error) {
	// cell: dir is <env>/<variant>/seed<N> below a compare folder in root
	// (or root itself) that lists it.
	cell := false
	e, c, sd, ok := ParseRunDir(dir)
	if ok {
		top := CompareFolderOf(dir)
		if rel, err := filepath.Rel(root, top); err == nil && filepath.IsLocal(rel) {
			m, err := ms.at(top)
			if err != nil {
				return "", "", 0, err
			}
			if m.Holds(e, c, sd) {
				return e, CellName(top, *m, c), sd, nil
			}
			cell = top == filepath.Clean(root)
		}
	}
	id, err := rundir.ReadIdentity(dir)
	if err != nil {
		if ok && cell {
			return e, c, sd, nil // a compare run whose config cannot be read: its folder names it
		}
		return "", "", 0, err
	}
	env, ctrl, seed, _ = NameByConfig(dir, id)
	return env, ctrl, seed, nil
}

// CompareFolderOf is the folder a run folder dir belongs to when it is a
// cell of a compare folder (<compare>/<env>/<controller>/seed<N>, a
// population's member among them): three levels up. Whether it is one is
// the caller's to check (a compare.json or PopulationFile there).
func CompareFolderOf(dir string) string {
	return filepath.Dir(filepath.Dir(filepath.Dir(dir)))
}

// PopulationFile is the definition `hyperctl population` writes in a
// population folder, beside the compare.json whose one row of cells are
// its members.
const PopulationFile = "population.json"

// CompareLockFile is the lock a local compare holds, shared, on its
// compare folder while its workers train (safefile.AcquireShared), so that
// status can tell a run that waits for one of them (LocalCompareRuns) from
// one that nothing will train.
const CompareLockFile = ".compare.lock"

// LocalCompareRuns reports whether a local compare runs on the compare
// folder out now (holds CompareLockFile).
func LocalCompareRuns(out string) (bool, error) {
	return safefile.Busy(out, CompareLockFile)
}

// waitsForCompare is the detail of a run that waits for a worker of the
// local compare that runs on its folder.
const waitsForCompare = "waits for a worker: a compare runs on its folder"

// PopulationLockFile is the lock in a population folder: held by the
// process that runs the population's phases (locally, for the whole run;
// on Slurm, by each step job), and it records that process's pid.
const PopulationLockFile = ".lock"

// CellName names the controller of a cell of the matrix m of the compare
// folder dir, the one rule of report, status and the dashboard: the cell's
// controller entry (NAME or NAME@PRESET), and in a population folder (one
// holding PopulationFile) its label (the method, or the method and the
// settings that differ from its defaults: m.Label) and the population's
// size, as pb2-8 or halving-eta2-same-8, so that populations of different
// sizes or settings under one folder name their members apart.
func CellName(dir string, m Manifest, entry string) string {
	if IsPopulation(dir) && len(m.Seeds) > 0 {
		if m.Label != "" {
			entry = m.Label
		}
		return fmt.Sprintf("%s-%d", entry, len(m.Seeds))
	}
	return entry
}

// Named returns m with its controllers named by CellName, as the runs of
// the compare folder dir are named: the cells a reader of dir expects.
func (m Manifest) Named(dir string) Manifest {
	named := m
	named.Controllers = make([]string, len(m.Controllers))
	for i, c := range m.Controllers {
		named.Controllers[i] = CellName(dir, m, c)
	}
	return named
}

// IsPopulation reports whether the compare folder dir is a population's
// (it holds PopulationFile).
func IsPopulation(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, PopulationFile))
	return err == nil && st.Mode().IsRegular()
}

// NameByConfig names the run in dir, outside any matrix, by its
// config.toml's identity id; the controller by its folder when the folder
// names the same run and says more (a preset the config does not name):
// compare's <env>/<variant>/seed<N> or train's default
// <env>-<variant>-seed<N>, such as hypercontroller@rl. fromFolder reports
// that the compare layout named it.
func NameByConfig(dir string, id rundir.Identity) (env, ctrl string, seed int64, fromFolder bool) {
	variant := func(v string) bool { return v == id.Controller || strings.HasPrefix(v, id.Controller+"@") }
	if e, c, sd, ok := ParseRunDir(dir); ok && e == id.Env && sd == id.Seed && variant(c) {
		return e, c, sd, true
	}
	if rest, ok := strings.CutPrefix(filepath.Base(dir), id.Env+"-"); ok {
		if c, ok := strings.CutSuffix(rest, fmt.Sprintf("-seed%d", id.Seed)); ok && variant(c) {
			return id.Env, c, id.Seed, false
		}
	}
	return id.Env, id.Controller, id.Seed, false
}
