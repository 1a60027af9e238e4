package population

import (
	"fmt"
	"os"
	"path/filepath"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/internal/member"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// What an exploited member (the receiver) inherits from its donor. Its run
// folder always becomes a copy of the donor's (rundir.CopyRun): the
// weights, Adam's state, the normalisers, the counters and the rows that
// led there. Definition.ReceiverRandom says whose random state it then
// continues with:
//
//   - RandomDonor: the donor's, as the copy holds it, so a receiver whose
//     configuration equals its donor's (an MF-PBT migrant) trains the
//     same rows as its donor, byte for byte. PBT's and PB2's rule: their
//     papers copy weights and hyperparameters and say nothing of the
//     random state, and their explore step changes the configuration
//     anyway. Also the rule of every population defined before the field
//     existed, which keeps it when continued;
//   - RandomOwn: its own (MF-PBT's, whose authors keep one random key per
//     agent and copy only parameters, optimiser and normaliser states):
//     its seed (its config.toml, from which evaluation seeds derive), the
//     trainer's generators, its training and evaluation environments and
//     the reward normaliser's running returns (ppo.Graft). The controller
//     snapshot stays the donor's: a member's controller (Given) never
//     draws from its generator.
const (
	RandomDonor = ""
	RandomOwn   = "own"
)

// ReceiverRandomOf is the rule a new population of method is defined with.
func ReceiverRandomOf(method string) string {
	if method == popmethod.MFPBT {
		return RandomOwn
	}
	return RandomDonor
}

// validReceiverRandom checks a definition's rule: RandomOwn only for a
// method whose step copies members.
func validReceiverRandom(rule, method string) error {
	switch rule {
	case RandomDonor:
		return nil
	case RandomOwn:
		if method == popmethod.PBT || method == popmethod.PB2 || method == popmethod.MFPBT {
			return nil
		}
		return fmt.Errorf("%q, but %s copies no member", rule, method)
	}
	return fmt.Errorf("%q; want %q or absent (the donor's)", rule, RandomOwn)
}

// maxConfigBytes caps a member's config.toml as it is staged.
const maxConfigBytes = 1 << 20

// stageOwn saves into dst what the receiver in dir keeps of its own under
// RandomOwn, before anything overwrites it: its checkpoint (the newest
// that passes its check) and its config.toml.
func stageOwn(dir, dst string) error {
	l, err := rundir.Acquire(dir)
	if err != nil {
		return err
	}
	defer l.Release()
	ck, _, err := rundir.ReadCheckpoint(dir)
	if err != nil {
		return err
	}
	cfg, err := safefile.ReadRegular(filepath.Join(dir, rundir.ConfigFile), maxConfigBytes)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	if err := safefile.WriteAtomic(filepath.Join(dst, rundir.CheckpointFile), rundir.EncodeCheckpoint(*ck)); err != nil {
		return err
	}
	return safefile.WriteAtomic(filepath.Join(dst, rundir.ConfigFile), cfg)
}

// keepOwn makes the run folder dst, just copied from its donor, continue
// with the random state stageOwn saved in own: its checkpoint's trainer
// snapshot becomes ppo.Graft(donor's, own's) (member.Graft) and its config.toml the
// receiver's. dst's previous checkpoint stays the donor's copy: a resume
// that falls back to it is refused (its seed is not the receiver's). The
// caller holds dst's lock.
func keepOwn(own, dst string) error {
	read := func(path string) (rundir.Checkpoint, error) {
		b, err := safefile.ReadRegular(path, rundir.MaxCheckpointBytes)
		if err != nil {
			return rundir.Checkpoint{}, err
		}
		c, err := rundir.DecodeCheckpoint(b)
		if err != nil {
			return c, fmt.Errorf("%s: %w", path, err)
		}
		return c, nil
	}
	o, err := read(filepath.Join(own, rundir.CheckpointFile))
	if err != nil {
		return fmt.Errorf("the receiver's staged checkpoint: %w", err)
	}
	path := rundir.CheckpointPath(dst)
	c, err := read(path)
	if err != nil {
		return fmt.Errorf("the donor's copied checkpoint: %w", err)
	}
	if member.Graft == nil {
		return fmt.Errorf("a receiver keeps its own random state, which needs the trainer: import experiment/run, which provides it")
	}
	if c.Trainer, err = member.Graft(c.Trainer, o.Trainer); err != nil {
		return err
	}
	cfg, err := safefile.ReadRegular(filepath.Join(own, rundir.ConfigFile), maxConfigBytes)
	if err != nil {
		return err
	}
	if err := safefile.WriteAtomic(path, rundir.EncodeCheckpoint(c)); err != nil {
		return err
	}
	return safefile.WriteAtomic(filepath.Join(dst, rundir.ConfigFile), cfg)
}
