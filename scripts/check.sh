#!/usr/bin/env bash
# check.sh: gofmt, go vet and the full test suite, the cgo-free packages'
# without cgo. Run through `make test`, which runs scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
# The tests compute on the kernels the hyperctl binary pins for itself
# (ppo.PinnedEnv, docs/guarantees.md), so an in-process run and the
# binary's are the same run on any machine with AVX2 and FMA (elsewhere both
# run on the machine's own kernels).
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo; then
  export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell} ATEN_CPU_CAPABILITY=${ATEN_CPU_CAPABILITY:-avx2}
fi

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './third_party/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
echo "gofmt: clean"
go vet ./...
echo "go vet: clean"
# The packages that build and test without cgo (no libtorch, no MuJoCo):
# the controllers, the methods, configs, kalman, the report's statistics,
# the matrix and population planning, and the checks of cmd/internal. Their
# tests run once, here, with CGO_ENABLED=0, so an import that drags cgo back
# in fails; every other package's tests run next, with cgo.
# cmd/internal/cgofree's test keeps this list whole: it fails when a listed
# package needs cgo, or a package that needs none is missing.
cgo_free=(./baselines/... ./cmd/hyperctl/internal/seeds ./cmd/internal/... ./configs/... ./internal/... ./controller/... ./envs/box2d ./envs/rendertest ./envs/rng ./experiment/analysis ./experiment/internal/member ./experiment/matrix ./experiment/progress ./experiment/slurm ./experiment/tbevents/... ./kalman/... ./ppo/policy/policytest ./ppo/ppoconfig)
CGO_ENABLED=0 go test -count=1 -timeout 25m "${cgo_free[@]}"
mapfile -t with_cgo < <(comm -23 <(go list ./... | sort) <(go list "${cgo_free[@]}" | sort))
go test -count=1 -timeout 25m -skip '^TestSlurm(EndToEnd|Population)$' "${with_cgo[@]}"
# The Slurm end-to-end test runs on its own, verbosely, so the output shows
# whether it ran (job ids, the requeued and the cancelled task, the counts)
# or why it skipped.
go test -count=1 -timeout 20m -run '^TestSlurm(EndToEnd|Population)$' -v ./cmd/hyperctl
# examples/customenv, built as an outside module would build it, trained on
# its own environment for a few iterations, its folder read by hyperctl.
bash scripts/customenv-check.sh
