// Package population runs a population (`hyperctl population`) and holds
// the format of its folder: the definition, the members' run folders
// (ordinary run folders, package rundir), the plan of every generation, the
// record of every exploit/explore step and the population log.
//
// # Running
//
// Define and Init set up the folder; TrainMember trains one member to the
// generation's frame target with the configuration the plan gives it (one
// training run per member per generation, continued from its checkpoint);
// StepAfter runs the exploit/explore step between generations, whose
// decisions come from baselines/population. Run is the local loop, whose
// members train in a pool of long-lived worker processes (Workers: a
// worker trains member after member, generation after generation, each
// from its checkpoint); the Slurm backend (SubmitGeneration) chains the
// same phases as job arrays and dependent jobs.
//
// Every method runs on these generations: PBT, PB2 and MF-PBT step
// between them; random search has one generation of the whole budget;
// successive halving's generations are its rungs (Definition.Rungs), and
// only the members Alive in a rung train in it (see halving.go).
//
// # Layout
//
//	population.json          the definition (Definition), written once
//	population.jsonl         the population log (Record): one JSON object per line
//	compare.json             the members as a compare matrix, so `hyperctl status`
//	                         and `hyperctl report` read the folder
//	generations/plan-G.json  generation G's plan (Plan): every member's configuration,
//	                         where its interval starts and the frame target
//	generations/step-G.json  the step after generation G (Step): every member's score,
//	                         donor and next configuration, written before it is applied
//	generations/ready-G/member-K.json
//	                         member K's digests of the files the step after G reads
//	                         (MemberReady), written when it reaches G's target
//	generations/stage-G/     while the step after G is applied: the donors it also
//	                         overwrites (t-test selection's chains) and, under
//	                         RandomOwn, the receivers' own random state (own-K),
//	                         staged first
//	result.json              written when the last generation has trained (Result)
//	.lock                    held by the process that runs the population
//	<env>/<method>/seed<S>/  member k's run folder, S = MemberSeed(seed, size, k); under
//	                         t-test selection it also holds episodes.csv, every
//	                         training episode's return (the t-test's data)
//
// G is written with four digits (plan-0003.json).
//
// # Seals
//
// population.json, the plans, the steps, the members' digests and
// result.json open with a "crc32c" field, and every log record ends with
// one: the CRC-32C of the rest of the file or line (statecodec.Checksum,
// the checksum of the run folder's checkpoints; seal.go says which bytes
// it covers). A file or record that fails its check is refused with its
// name (and line), never used, and never cut from the log: only a torn
// last line (no newline) of a step not yet done is. Verify checks the
// files together and the log against the steps and result it is written
// from (verify.go); every reader verifies first. A member's files that a
// step reads are checked against its digests (ready.go). A member's resume from a checkpoint older than its current settings
// (the previous checkpoint, when the newest fails its check) is refused
// naming the member, since it would redo rows with other settings; one
// that redoes rows with the settings they had is exact and goes ahead.
// Files written before seals existed are legacy: status, report and eval
// read them (status says so), and `hyperctl population` accepts a finished
// legacy population as it is, but continues none. compare.json steers
// nothing and is not sealed.
//
// # Crash safety
//
// Every file is written atomically (temporary file, fsync, rename) except
// the log, which is appended and fsync'd. Every file is sealed with a
// CRC-32C (seal.go), every log record with its own: a damaged file or
// record is refused with its name, never used, and the log is never cut
// except for a torn last line. A generation is trained when
// every member's checkpoint holds its target; the step after it is decided
// once (step-G.json), then applied: the exploited members' folders become
// copies of their donors' (rundir.CopyRun, redone whole if cut short; a
// donor that the step also overwrites is copied to stage-G first, and
// stage-G is renamed into place complete, so every redone copy reads its
// donor as it was at the ready point), the
// step's log records are appended (AppendGeneration first cuts any record
// of this generation or later, torn or complete, so a redone step never
// duplicates one), and plan-(G+1).json is written last: its presence marks
// the step done. A process killed at any moment and started again redoes
// or skips each phase exactly: training a member that already reached its
// target returns at once, a step whose plan for the next generation exists
// is done, and a step decided but not fully applied is applied again from
// its record. Under RandomOwn (MF-PBT) each copy then takes back the
// receiver's own random state, staged in stage-G before any copy
// (inherit.go).
package population

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// File names inside a population folder.
const (
	DefinitionFile = matrix.PopulationFile
	LogFile        = "population.jsonl"
	GenerationsDir = "generations"
	ResultFile     = "result.json"
	LockFile       = matrix.PopulationLockFile
)

// FormatVersion is the version of the definition this package writes.
const FormatVersion = 1

// MaxSize bounds the number of members.
const MaxSize = 256

// Definition is population.json: what the population is. A population
// folder is continued only with the same definition (Command and Backend
// aside).
type Definition struct {
	Format int    `json:"format"`
	Env    string `json:"env"`
	// Method and its settings: selection quantile, PBT's resample
	// probability, PB2's GP settings.
	Settings popmethod.Settings `json:"settings"`
	Size     int                `json:"size"`
	Seed     int64              `json:"seed"`
	Frames   int64              `json:"frames"` // every member's frame budget
	Ready    int64              `json:"ready"`  // frames per generation
	Tuned    []string           `json:"tuned"`  // the tuned keys, in the space's order
	// Config is the members' config (TOML) with seed = 0 and threads = 0:
	// member k starts with seed MemberSeed(Seed, Size, k).
	Config  string `json:"config"`
	Command string `json:"command"`
	// Backend is the Slurm submission's settings, opaque here (empty for
	// a local run).
	Backend json.RawMessage `json:"backend,omitempty"`
	// ReceiverRandom is what an exploited member's random state becomes
	// (inherit.go): RandomDonor (absent: every definition written before
	// the field existed, and PBT's and PB2's) or RandomOwn (MF-PBT's).
	ReceiverRandom string `json:"receiver_random,omitempty"`
}

// Validate checks the definition's numbers; errors name the field.
func (d *Definition) Validate() error {
	switch {
	case d.Format != FormatVersion:
		return fmt.Errorf("format: %d, this hyperctl reads %d", d.Format, FormatVersion)
	case strings.TrimSpace(d.Env) == "":
		return errors.New("env: missing")
	case d.Size < 2 || d.Size > MaxSize:
		return fmt.Errorf("size: want an integer in [2, %d] members, got %d", MaxSize, d.Size)
	case d.Seed < 0 || d.Seed > (controller.MaxSeed-int64(d.Size))/int64(d.Size):
		return fmt.Errorf("seed: want an integer in [0, %d] for %d members (member seeds are seed·size + k), got %d", (controller.MaxSeed-int64(d.Size))/int64(d.Size), d.Size, d.Seed)
	case d.Frames < 1:
		return fmt.Errorf("frames: want a frame budget >= 1, got %d", d.Frames)
	case d.Ready < 1 || d.Ready > d.Frames:
		return fmt.Errorf("ready: want an integer in [1, frames = %d], got %d", d.Frames, d.Ready)
	case d.Generations() > MaxGenerations:
		return fmt.Errorf("ready: %d frames per generation make %d generations, more than %d; raise ready", d.Ready, d.Generations(), MaxGenerations)
	case len(d.Tuned) == 0:
		return errors.New("tuned: no tuned keys")
	}
	if err := d.Settings.Validate(); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if err := validReceiverRandom(d.ReceiverRandom, d.Settings.Method); err != nil {
		return fmt.Errorf("receiver_random: %w", err)
	}
	if err := d.Settings.ValidateSize(d.Size); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if d.Settings.Method == popmethod.Halving {
		if _, err := d.Rungs(); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
	}
	return nil
}

// Rungs is a successive halving population's schedule (popmethod.Rungs of
// its size, eta and min frames up to its frame budget): generation g is
// rung g. Other methods have none.
func (d *Definition) Rungs() ([]popmethod.Rung, error) {
	if d.Settings.Method != popmethod.Halving {
		return nil, nil
	}
	return popmethod.Rungs(d.Size, d.Settings.Eta, d.Settings.MinFrames, d.Frames)
}

// MaxGenerations bounds the number of generations.
const MaxGenerations = 10000

// Generations is the number of generations: ⌈frames / ready⌉, or for
// successive halving the number of rungs.
func (d *Definition) Generations() int {
	if r, err := d.Rungs(); err == nil && len(r) > 0 {
		return len(r)
	}
	return int((d.Frames + d.Ready - 1) / d.Ready)
}

// GenerationWord is what a user is told a generation is: a "rung" for
// successive halving, else a "generation".
func GenerationWord(method string) string {
	if method == popmethod.Halving {
		return "rung"
	}
	return "generation"
}

// Target is generation g's frame target: (g+1)·ready, the budget for the
// last generation; for successive halving, rung g's frames.
func (d *Definition) Target(g int) int64 {
	if r, err := d.Rungs(); err == nil && g >= 0 && g < len(r) {
		return r[g].Frames
	}
	return min(int64(g+1)*d.Ready, d.Frames)
}

// PlannedFrames is the frames all members train together: size × frames,
// or for successive halving the frames its rungs use (popmethod.FramesUsed).
func (d *Definition) PlannedFrames() int64 {
	if r, err := d.Rungs(); err == nil && len(r) > 0 {
		return popmethod.FramesUsed(r)
	}
	return int64(d.Size) * d.Frames
}

// Last reports whether g is the last generation.
func (d *Definition) Last(g int) bool { return g >= d.Generations()-1 }

// MemberSeed is member k's seed: seed·size + k, so the populations of
// seeds 0, 1, … of one size use disjoint seeds (and the same seeds as
// `fixed` runs of seeds seed·size … seed·size + size − 1).
func MemberSeed(seed int64, size, k int) int64 { return seed*int64(size) + int64(k) }

// MemberSeeds lists the member seeds.
func (d *Definition) MemberSeeds() []int64 {
	out := make([]int64, d.Size)
	for k := range out {
		out[k] = MemberSeed(d.Seed, d.Size, k)
	}
	return out
}

// MemberDir is member k's run folder: <out>/<env>/<method>/seed<S>, the
// layout of a compare folder.
func (d *Definition) MemberDir(out string, k int) string {
	return filepath.Join(out, matrix.RunDir(d.Env, d.Settings.Method, MemberSeed(d.Seed, d.Size, k)))
}

// Same reports the difference between two definitions ("" when they
// define the same population; Command and Backend are not compared).
func (d *Definition) Same(o *Definition) string {
	a, b := *d, *o
	a.Command, b.Command, a.Backend, b.Backend = "", "", nil, nil
	ja, _ := json.MarshalIndent(a, "", "  ")
	jb, _ := json.MarshalIndent(b, "", "  ")
	if string(ja) == string(jb) {
		return ""
	}
	var diff []string
	al, bl := strings.Split(string(ja), "\n"), strings.Split(string(jb), "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			diff = append(diff, fmt.Sprintf("- %s\n+ %s", strings.TrimSpace(x), strings.TrimSpace(y)))
			if len(diff) == 5 {
				break
			}
		}
	}
	return strings.Join(diff, "\n")
}

// WriteDefinition writes out/population.json atomically, sealed.
func WriteDefinition(out string, d Definition) error {
	return writeJSON(filepath.Join(out, DefinitionFile), d)
}

// ReadDefinition reads and validates out/population.json, which must be
// sealed (what steers training reads it); a missing file matches
// fs.ErrNotExist, and a damaged or unsealed one is an error naming it.
func ReadDefinition(out string) (Definition, error) {
	d, _, err := readDefinition(out, Sealed)
	return d, err
}

// ReadDefinitionLegacy is ReadDefinition for readers that steer nothing
// (status, report): it also accepts a legacy (unsealed) file, and says so.
func ReadDefinitionLegacy(out string) (d Definition, legacy bool, err error) {
	return readDefinition(out, Legacy)
}

func readDefinition(out string, strict Strictness) (Definition, bool, error) {
	var d Definition
	path := filepath.Join(out, DefinitionFile)
	legacy, err := readJSON(path, &d, Legacy)
	if err != nil {
		return d, legacy, err
	}
	if legacy {
		var p Plan
		if old, err := readJSON(genPath(out, "plan", 0), &p, Legacy); err == nil && !old {
			return d, false, fmt.Errorf("%s is refused: %w", path, errNoSeal)
		}
		if strict == Sealed {
			return d, true, fmt.Errorf("%s is refused: %w", path, ErrUnsealed)
		}
	}
	if err := d.Validate(); err != nil {
		return d, legacy, fmt.Errorf("%s: %w", filepath.Join(out, DefinitionFile), err)
	}
	return d, legacy, nil
}

// maxJSONBytes caps the size of a definition, plan, step or result file.
const maxJSONBytes = 16 << 20

// writeJSON writes v to path atomically, sealed (sealJSON).
func writeJSON(path string, v any) error {
	b, err := sealJSON(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefile.WriteAtomic(path, b)
}

// readJSON reads path into v, checking its seal (openJSON); a missing file
// matches fs.ErrNotExist, any other error names the file.
func readJSON(path string, v any, strict Strictness) (legacy bool, err error) {
	b, err := safefile.ReadRegular(path, maxJSONBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		return false, fmt.Errorf("%s: %w", path, err)
	}
	legacy, err = openJSON(b, v, strict)
	if err != nil {
		return legacy, fmt.Errorf("%s is refused: %w", path, err)
	}
	return legacy, nil
}

// finite reports whether every v is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
