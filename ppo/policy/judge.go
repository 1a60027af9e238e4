package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

// FreshSeedBase is the seed of the first fresh episode: the episodes that
// judge a selected policy reset with FreshSeedBase+k, seeds that no
// training or selection ever used, so a selection's winner is scored on
// episodes it was not picked on.
//
// FreshSeedBase = 2^62 + 2^61 = 6917529027641081856. Every seed that
// training and selection use is below it:
//
//   - a run's seed is at most controller.MaxSeed (2^61 − 1, also
//     ppo.MaxSeed), and its environment copies reset with seed+i, i <
//     num_envs ≤ 256 (ppoconfig's bound): below 2^61 + 256;
//   - ppo's in-run evaluations (which every selection picks on: a
//     population's best member, a halving survivor, a random-search
//     winner, best-of-N) reset with ppo's derivedSeed, int64(z>>2) of a
//     uint64 z: below 2^64/4 = 2^62, and, were copies to be added to it,
//     below 2^62 + 256;
//   - hyperctl eval's default seeds and the report's random-policy
//     episodes are 0…k−1 with k ≤ 10^6.
//
// The largest of these bounds, 2^62 + 256, is below 2^62 + 2^61. Fresh
// episode k uses FreshSeedBase+k, which stays a valid int64 for k <
// 2^63 − FreshSeedBase = 2^61 (MaxJudgeEpisodes is far below that). The
// ppo package's test checks derivedSeed's bound on many inputs.
const FreshSeedBase int64 = 1<<62 + 1<<61

// MinJudgeEpisodes is the fewest fresh episodes a judgement runs, and
// the default.
const MinJudgeEpisodes = 50

// MaxJudgeEpisodes bounds the fresh episodes of a judgement.
const MaxJudgeEpisodes = 1_000_000

// JudgeFile is the file a judgement is written to in the run folder.
const JudgeFile = "judge.json"

// JudgeFormat names judge.json's format.
const JudgeFormat = "hyperctl-judge"

// JudgeFormatVersion is the version of judge.json this package writes:
// version 2 is sealed (its first line is a CRC-32C of the rest,
// statecodec.SealJSON). A judge.json without a format_version was written
// before judgements were sealed (version 1): it is read as it is, and
// Judgement.Unsealed says so; one of version 2 or later without its
// checksum line is damaged.
const JudgeFormatVersion = 2

// Judgement is a selected policy's score on fresh episodes: judge.json.
type Judgement struct {
	Format string `json:"format"`
	// FormatVersion is JudgeFormatVersion; absent (0) in the unsealed
	// judgements of older versions.
	FormatVersion int `json:"format_version,omitempty"`
	// Unsealed: read from a judge.json of an older version, without a
	// checksum (not written).
	Unsealed bool `json:"-"`
	// Policy is the judged policy's name (policy-best).
	Policy string `json:"policy"`
	// WeightsSHA256 and SidecarSHA256 are the hex SHA-256 of the policy's
	// two files: a judgement whose hashes differ from the files on disk is
	// stale.
	WeightsSHA256 string `json:"weights_sha256"`
	SidecarSHA256 string `json:"sidecar_sha256"`
	// Env is the environment's Gymnasium id.
	Env string `json:"env"`
	// SeedBase is the seed of episode 0 (FreshSeedBase); Seeds lists every
	// episode's seed.
	SeedBase int64     `json:"seed_base"`
	Episodes int       `json:"episodes"`
	Seeds    []int64   `json:"seeds"`
	Returns  []float64 `json:"returns"`
	Lengths  []int     `json:"lengths"`
	Mean     float64   `json:"mean"`
	Std      float64   `json:"std"` // population standard deviation
	// HyperctlVersion is the version of the hyperctl that judged.
	HyperctlVersion string `json:"hyperctl_version"`
}

// PolicyHashes returns the hex SHA-256 of the weights file and of the
// sidecar of the policy name in dir.
func PolicyHashes(dir, name string) (weights, sidecar string, err error) {
	wpath, mpath := Paths(dir, name)
	sum := func(path string) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("policy: %w", err)
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:]), nil
	}
	if weights, err = sum(wpath); err != nil {
		return "", "", err
	}
	if sidecar, err = sum(mpath); err != nil {
		return "", "", err
	}
	return weights, sidecar, nil
}

// CheckJudgeEpisodes refuses a count of fresh episodes outside
// [MinJudgeEpisodes, MaxJudgeEpisodes], the one rule for it.
func CheckJudgeEpisodes(episodes int) error {
	if episodes < MinJudgeEpisodes || episodes > MaxJudgeEpisodes {
		return fmt.Errorf("want an integer in [%d, %d], got %d", MinJudgeEpisodes, MaxJudgeEpisodes, episodes)
	}
	return nil
}

// Judge evaluates the policy name of the run folder dir on episodes fresh
// deterministic episodes (Evaluate from FreshSeedBase) and returns the
// judgement, with version as its hyperctl version. episodes must lie in
// [MinJudgeEpisodes, MaxJudgeEpisodes]. It does not write judge.json
// (JudgeRun does).
func Judge(ctx context.Context, dir, name string, episodes int, version string) (Judgement, error) {
	j := Judgement{Format: JudgeFormat, FormatVersion: JudgeFormatVersion, Policy: name, SeedBase: FreshSeedBase, Episodes: episodes, HyperctlVersion: version}
	if err := CheckJudgeEpisodes(episodes); err != nil {
		return j, fmt.Errorf("judge %s: episodes: %w", dir, err)
	}
	var err error
	if j.WeightsSHA256, j.SidecarSHA256, err = PolicyHashes(dir, name); err != nil {
		return j, err
	}
	p, err := Load(dir, name)
	if err != nil {
		return j, err
	}
	res, err := Evaluate(ctx, p, episodes, FreshSeedBase)
	if err != nil {
		return j, fmt.Errorf("judge %s: %w", dir, err)
	}
	// The files must be the ones just evaluated (a run still training may
	// have replaced them).
	w, m, err := PolicyHashes(dir, name)
	if err != nil {
		return j, err
	}
	if w != j.WeightsSHA256 || m != j.SidecarSHA256 {
		return j, fmt.Errorf("judge %s: %s changed while it was judged; judge it again when the run has finished", dir, name)
	}
	j.Env = res.Env
	for k := range episodes {
		j.Seeds = append(j.Seeds, FreshSeedBase+int64(k))
	}
	j.Returns, j.Lengths, j.Mean, j.Std = res.Returns, res.Lengths, res.Mean, res.Std
	return j, nil
}

// ReadJudgement reads dir's judge.json; an error wrapping fs.ErrNotExist
// when there is none.
func ReadJudgement(dir string) (Judgement, error) {
	var j Judgement
	path := filepath.Join(dir, JudgeFile)
	b, err := safefile.ReadRegular(path, 64<<20)
	if err != nil {
		return j, fmt.Errorf("judge: %w", err)
	}
	body, sealed, err := statecodec.OpenJSON(b)
	if err != nil {
		return j, fmt.Errorf("judge: %s is damaged: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return j, fmt.Errorf("judge: %s is damaged: %w", path, err)
	}
	switch {
	case j.FormatVersion > JudgeFormatVersion || j.FormatVersion < 0 || j.FormatVersion == 1:
		return j, fmt.Errorf("judge: %s: format_version %d, this hyperctl reads %d (or none, from before judgements were sealed)", path, j.FormatVersion, JudgeFormatVersion)
	case !sealed && j.FormatVersion >= 2:
		return j, fmt.Errorf("judge: %s is damaged: it has no checksum line, and its format_version %d is sealed", path, j.FormatVersion)
	case sealed && j.FormatVersion == 0:
		return j, fmt.Errorf("judge: %s is damaged: it is sealed but has no format_version", path)
	}
	j.Unsealed = !sealed
	if err := j.check(); err != nil {
		return j, fmt.Errorf("judge: %s is damaged: %w", path, err)
	}
	return j, nil
}

// check refuses a judgement that does not hold together.
func (j Judgement) check() error {
	switch {
	case j.Format != JudgeFormat:
		return fmt.Errorf("format %q, want %q", j.Format, JudgeFormat)
	case j.SeedBase < FreshSeedBase:
		return fmt.Errorf("seed_base %d is below the fresh seed base %d", j.SeedBase, FreshSeedBase)
	case j.Episodes < MinJudgeEpisodes || len(j.Seeds) != j.Episodes || len(j.Returns) != j.Episodes || len(j.Lengths) != j.Episodes:
		return fmt.Errorf("episodes %d with %d seeds, %d returns and %d lengths, want at least %d of each", j.Episodes, len(j.Seeds), len(j.Returns), len(j.Lengths), MinJudgeEpisodes)
	}
	for k, s := range j.Seeds {
		if s != j.SeedBase+int64(k) {
			return fmt.Errorf("seeds[%d] = %d, want seed_base+%d", k, s, k)
		}
	}
	mean, std, _, _ := stats(j.Returns)
	if math.Abs(mean-j.Mean) > 1e-9*math.Max(1, math.Abs(mean)) || math.Abs(std-j.Std) > 1e-9*math.Max(1, std) {
		return fmt.Errorf("mean %g and std %g differ from the returns' %g and %g", j.Mean, j.Std, mean, std)
	}
	return nil
}

// Current reports whether j judged the policy name of dir as it is now
// on disk, with episodes episodes.
func (j Judgement) Current(dir, name string, episodes int) (bool, error) {
	w, m, err := PolicyHashes(dir, name)
	if err != nil {
		return false, err
	}
	return j.Policy == name && j.WeightsSHA256 == w && j.SidecarSHA256 == m && j.Episodes == episodes && j.SeedBase == FreshSeedBase, nil
}

// JudgeRun judges the policy name of the run folder dir (Judge) and
// writes judge.json into dir atomically, unless judge.json already judges
// these very files with as many episodes: then it returns that judgement
// and written false. A judge.json of other files (a changed policy) is
// replaced.
func JudgeRun(ctx context.Context, dir, name string, episodes int, version string) (j Judgement, written bool, err error) {
	if err := CheckJudgeEpisodes(episodes); err != nil {
		return j, false, fmt.Errorf("judge %s: episodes: %w", dir, err)
	}
	if old, err := ReadJudgement(dir); err == nil {
		if ok, err := old.Current(dir, name, episodes); err != nil {
			return old, false, err
		} else if ok {
			if _, err := Load(dir, name); err != nil {
				return old, false, err // the judged files are damaged
			}
			return old, false, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return j, false, err
	}
	if j, err = Judge(ctx, dir, name, episodes, version); err != nil {
		return j, false, err
	}
	b, err := statecodec.SealJSON(j)
	if err != nil {
		return j, false, fmt.Errorf("judge: encode %s: %w", filepath.Join(dir, JudgeFile), err)
	}
	if err := safefile.WriteAtomic(filepath.Join(dir, JudgeFile), b); err != nil {
		return j, false, fmt.Errorf("judge: %w", err)
	}
	return j, true, nil
}
