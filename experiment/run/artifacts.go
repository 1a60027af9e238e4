package run

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/experiment/tbevents"
	"github.com/hyperctl/hyperctl/ppo"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// TensorBoard tags. Per iteration, at step = frames trained: the training
// reward R_t, the objective X_t (when defined), the mean return of the
// episodes that finished (when any), every hyperparameter train.csv logs
// (hyper/<key>; configs.Run.LoggedHyper: the paper's four and every other
// tuned key), the update's losses, approximate KL, clip fraction,
// gradient norm and explained variance (not after a rejected update),
// cumulative rejected updates, and the iteration's frames per second. Per
// evaluation: its mean return and mean length.
const (
	TagReward        = "train/reward"
	TagObjective     = "train/objective"
	TagEpisodeReturn = "train/mean_episode_return"
	TagHyperPrefix   = "hyper/"
	TagPolicyLoss    = "loss/policy"
	TagValueLoss     = "loss/value"
	TagEntropy       = "loss/entropy"
	TagApproxKL      = "ppo/approx_kl"
	TagClipFrac      = "ppo/clip_fraction"
	TagGradNorm      = "ppo/grad_norm"
	TagExplainedVar  = "ppo/explained_variance"
	TagRejected      = "ppo/rejected_updates"
	TagFPS           = "perf/frames_per_s"
	TagEvalReturn    = "eval/return"
	TagEvalLength    = "eval/length"
)

// artifacts are what a run leaves besides its CSVs: the TensorBoard events
// and the policies (policy-final, policy-best).
type artifacts struct {
	out     string
	plan    *configs.Plan
	version string
	tr      *ppo.Trainer
	keeper  *policy.Keeper
	tb      *tbevents.Writer

	evalAt     int // the trainer's iteration count after the last evaluation (-1: none)
	evalReturn float64
}

// openArtifacts opens the events file and the policies of the run in out.
// A continued run (resumed at the trainer's iteration and frames) cuts the
// events after the checkpoint's frames and gets back the policy-best kept
// beside the checkpoint it resumed from, in ckptDir (rundir.CheckpointRead's
// Dir; "" for the newest checkpoint's folder); a new one starts an events
// file.
func openArtifacts(out, ckptDir string, plan *configs.Plan, tr *ppo.Trainer, resumed bool, version string) (*artifacts, error) {
	a := &artifacts{out: out, plan: plan, version: version, tr: tr, evalAt: -1}
	if ckptDir == "" {
		ckptDir = filepath.Join(out, rundir.CheckpointDir)
	}
	var err error
	if a.keeper, err = policy.OpenKeeper(out, ckptDir, tr.Iteration()); err != nil {
		return nil, err
	}
	if resumed {
		a.tb, err = tbevents.Resume(out, tr.Frames(), time.Now())
	} else {
		a.tb, err = tbevents.Create(out, time.Now())
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// iteration writes an iteration's events and, after an evaluation, the
// policies.
func (a *artifacts) iteration(rep ppo.Report, row rundir.TrainRow) error {
	st := rep.Stats
	v := []tbevents.Scalar{{Tag: TagReward, Value: st.Reward}}
	if row.HaveObjective {
		v = append(v, tbevents.Scalar{Tag: TagObjective, Value: row.Objective})
	}
	if row.Episodes > 0 {
		v = append(v, tbevents.Scalar{Tag: TagEpisodeReturn, Value: row.MeanReturn})
	}
	names := a.plan.Logged // row.Hyper's order
	if len(names) != len(row.Hyper) {
		return fmt.Errorf("tensorboard: %d hyperparameter values for %d logged keys", len(row.Hyper), len(names))
	}
	for i, name := range names {
		var x float64
		switch h := row.Hyper[i].(type) {
		case int:
			x = float64(h)
		case float64:
			x = h
		default:
			return fmt.Errorf("tensorboard: hyperparameter %s has type %T", name, h)
		}
		v = append(v, tbevents.Scalar{Tag: TagHyperPrefix + name, Value: x})
	}
	if u := st.Update; !u.Rejected {
		v = append(v,
			tbevents.Scalar{Tag: TagPolicyLoss, Value: u.PolicyLoss},
			tbevents.Scalar{Tag: TagValueLoss, Value: u.ValueLoss},
			tbevents.Scalar{Tag: TagEntropy, Value: u.Entropy},
			tbevents.Scalar{Tag: TagApproxKL, Value: u.ApproxKL},
			tbevents.Scalar{Tag: TagClipFrac, Value: u.ClipFrac},
			tbevents.Scalar{Tag: TagGradNorm, Value: u.GradNorm},
			tbevents.Scalar{Tag: TagExplainedVar, Value: u.ExplainedVar})
	}
	v = append(v, tbevents.Scalar{Tag: TagRejected, Value: float64(row.Rejected)})
	if s := st.Elapsed.Seconds(); s > 0 {
		v = append(v, tbevents.Scalar{Tag: TagFPS, Value: float64(st.Frames) / s})
	}
	if e := rep.Eval; e != nil {
		steps := 0
		for _, l := range e.Lengths {
			steps += l
		}
		v = append(v, tbevents.Scalar{Tag: TagEvalReturn, Value: e.Mean},
			tbevents.Scalar{Tag: TagEvalLength, Value: float64(steps) / float64(max(len(e.Lengths), 1))})
	}
	if err := a.tb.Write(st.TotalFrames, time.Now(), v...); err != nil {
		return err
	}
	if rep.Eval != nil {
		p, err := a.policy()
		if err != nil {
			return err
		}
		if _, err := a.keeper.Evaluated(p, rep.Eval.Mean); err != nil {
			return err
		}
		a.evalAt, a.evalReturn = a.tr.Iteration(), rep.Eval.Mean
	}
	return nil
}

// policy is the trainer's policy with the run's details.
func (a *artifacts) policy() (*policy.Policy, error) {
	p, err := a.tr.Policy()
	if err != nil {
		return nil, err
	}
	p.Meta.Controller = a.plan.ControllerName()
	p.Meta.HyperctlVersion = a.version
	return p, nil
}

// checkpoint keeps policy-best beside the checkpoint just written.
func (a *artifacts) checkpoint() error {
	return a.keeper.Checkpoint(filepath.Join(a.out, rundir.CheckpointDir))
}

// final writes policy-final: the policy as training stops (finished or
// interrupted), with its evaluation return when the last iteration was
// evaluated (then Evaluated already wrote the same policy).
func (a *artifacts) final() error {
	if a.evalAt == a.tr.Iteration() {
		return nil
	}
	p, err := a.policy()
	if err != nil {
		return err
	}
	p.Meta.EvalReturn = nil
	return a.keeper.Final(p)
}

func (a *artifacts) close() error {
	if a == nil || a.tb == nil {
		return nil
	}
	return a.tb.Close()
}
