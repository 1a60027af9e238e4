package matrix

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// ManifestFile is the compare matrix written by `hyperctl compare` (and by
// `hyperctl population`, whose members are one row of a matrix).
const ManifestFile = "compare.json"

// maxManifestBytes caps a compare.json read: a matrix of thousands of runs
// with hundreds of Slurm submissions stays far below it.
const maxManifestBytes = 16 << 20

// Manifest records what a compare run was asked to do.
type Manifest struct {
	Envs        []string `json:"envs"`
	Controllers []string `json:"controllers"`
	Seeds       []int64  `json:"seeds"`
	Iterations  int      `json:"iterations"`
	Frames      int64    `json:"frames,omitempty"` // the frame budget of every run (absent: none)
	Command     string   `json:"command"`
	// Label names a population's row (its method and the settings that
	// differ from the method's defaults, popmethod.Settings.Label); empty
	// for a compare, and in populations written before labels.
	Label string `json:"label,omitempty"`
	// SlurmJobs are the submissions of `compare --backend slurm`, oldest
	// first (absent for local compares).
	SlurmJobs []SlurmJob `json:"slurm_jobs,omitempty"`
}

// SlurmJob is one job array submitted by `compare --backend slurm`.
type SlurmJob struct {
	ID        string `json:"id"`        // Slurm's job id
	Submitted string `json:"submitted"` // RFC 3339 time of the submission
	// Runs are the run folders relative to the compare folder
	// (<env>/<controller>/seed<N>); array task i runs Runs[i].
	Runs []string `json:"runs"`
}

// Cells lists the matrix's runs in its order: environments, then
// controllers, then seeds.
func (m Manifest) Cells() []Cell {
	var cs []Cell
	for _, e := range m.Envs {
		for _, c := range m.Controllers {
			for _, s := range m.Seeds {
				cs = append(cs, Cell{Env: e, Controller: c, Seed: s})
			}
		}
	}
	return cs
}

// Holds reports whether the matrix m (nil: none) has the run of env,
// controller and seed.
func (m *Manifest) Holds(env, ctrl string, seed int64) bool {
	return m != nil && slices.Contains(m.Envs, env) && slices.Contains(m.Controllers, ctrl) && slices.Contains(m.Seeds, seed)
}

// sameMatrix reports whether m and o ask for the same runs.
func (m Manifest) sameMatrix(o Manifest) bool {
	return slices.Equal(o.Envs, m.Envs) && slices.Equal(o.Controllers, m.Controllers) && slices.Equal(o.Seeds, m.Seeds) &&
		o.Iterations == m.Iterations && o.Frames == m.Frames
}

// ReadManifest reads dir's compare.json. A missing file is an error that
// wraps fs.ErrNotExist; every error names the file.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	path := filepath.Join(dir, ManifestFile)
	b, err := safefile.ReadRegular(path, maxManifestBytes)
	if err != nil {
		return m, err // *fs.PathError: it names the file
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// WriteManifest writes m as dir's compare.json, atomically.
func WriteManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("manifest %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return safefile.WriteAtomic(filepath.Join(dir, ManifestFile), append(b, '\n'))
}

// Merge checks the matrix m against the one already in out: a different
// one is refused unless force. The Slurm jobs recorded there are kept, so
// status still sees them. An unreadable compare.json is replaced.
func Merge(out string, m Manifest, force bool) (Manifest, error) {
	old, err := ReadManifest(out)
	if err != nil {
		return m, nil
	}
	if !force && !m.sameMatrix(old) {
		return m, &words.AdviceError{Msg: fmt.Sprintf("compare: %s holds a different matrix (envs %v, controllers %v, seeds %v, %d iterations, frame budget %d); use another {out}, or {force} to adopt the new one",
			out, old.Envs, old.Controllers, old.Seeds, old.Iterations, old.Frames)}
	}
	m.SlurmJobs = old.SlurmJobs
	return m, nil
}

// AppendSlurmJob records the Slurm job id, submitted now, whose array task
// i runs the run folder runs[i] (relative to out): it appends the job to m
// and writes m as out's compare.json. It returns the manifest written.
func AppendSlurmJob(out string, m Manifest, id string, runs []string) (Manifest, error) {
	m.SlurmJobs = append(slices.Clip(m.SlurmJobs), SlurmJob{ID: id, Submitted: time.Now().UTC().Format(time.RFC3339), Runs: runs})
	return m, WriteManifest(out, m)
}

// JobIDs lists the ids of the Slurm jobs recorded in m, oldest first.
func (m Manifest) JobIDs() []string {
	var ids []string
	for _, j := range m.SlurmJobs {
		ids = append(ids, j.ID)
	}
	return ids
}
