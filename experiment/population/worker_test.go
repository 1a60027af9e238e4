package population

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	exprun "github.com/hyperctl/hyperctl/experiment/run"
)

// BenchmarkMemberResume is what a worker pays per member and generation
// in process, besides training: TrainMember on a HalfCheetah member
// (the default config) already at its frame target reads the population's
// files, builds the trainer (environments, networks), restores the
// checkpoint and returns. A process of its own per member and generation
// also paid its start and libtorch's load (`hyperctl version`'s time).
func BenchmarkMemberResume(b *testing.B) {
	base, err := configs.Default("halfcheetah", func(r *configs.Run) { r.Controller.Name = configs.Population })
	if err != nil {
		b.Fatal(err)
	}
	def, run, err := Define(base, Spec{Method: popmethod.PBT, Size: 2, Seed: 1, Frames: 24000, Ready: 12000, Resample: -1, Command: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "pop")
	if err := Init(out, def, run); err != nil {
		b.Fatal(err)
	}
	o := MemberOptions{Threads: 1, Log: zerolog.Nop(), Train: exprun.TrainMember}
	if err := TrainMember(context.Background(), out, 0, 0, o); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := TrainMember(context.Background(), out, 0, 0, o); err != nil {
			b.Fatal(err)
		}
	}
}
