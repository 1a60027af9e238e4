package population

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

// WorkerRequest asks a population worker to train one member through one
// generation (TrainMember).
type WorkerRequest struct {
	Generation int `json:"generation"`
	Member     int `json:"member"`
}

// Workers trains the members of the population in out in a pool of jobs
// long-lived worker processes (matrix.Workers running `binary population
// member --out OUT`, which ends in ServeMembers), each with threads
// threads: a worker trains member after member, generation after
// generation, so a population pays one process start and one libtorch
// load per worker instead of one per member and generation. Every member
// still resumes from its checkpoint and pauses with it written, exactly
// as a process of its own does, so the folders are the same. Its Train
// is Options.Train; Close ends the workers.
type Workers struct {
	out  string
	def  Definition
	pool *matrix.Workers
}

// NewWorkers starts (lazily) the pool of workers for the population in out.
func NewWorkers(o Options, binary string, threads int) (*Workers, error) {
	def, err := ReadDefinition(o.Out)
	if err != nil {
		return nil, err
	}
	args := []string{"population", "member", "--out", o.Out}
	return &Workers{out: o.Out, def: def, pool: matrix.NewWorkers(o.Jobs, o.Log, binary, args, threads)}, nil
}

// Train trains member k through generation g in an idle worker.
func (w *Workers) Train(ctx context.Context, g, k int) error {
	return w.pool.Do(ctx, w.def.MemberDir(w.out, k), WorkerRequest{Generation: g, Member: k})
}

// Close ends the workers.
func (w *Workers) Close() { w.pool.Close() }

// ServeMembers is a worker's side (`hyperctl population member --out OUT`
// without a member): it trains the members its pool asks for, one at a
// time (TrainMember with o), until the pool closes its requests.
func ServeMembers(ctx context.Context, out string, o MemberOptions) error {
	return matrix.ServeWorker(ctx, func(ctx context.Context, raw json.RawMessage) error {
		var r WorkerRequest
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("population worker: request %s: %w", raw, err)
		}
		return TrainMember(ctx, out, r.Generation, r.Member, o)
	})
}
