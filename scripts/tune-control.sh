#!/usr/bin/env bash
# tune-control.sh: the control variants of issue 25 on the tuning seeds,
# never on the deciding matrix's seeds 0-9. Each variant is one resumable
# study (scripts/study.sh) into results/tune-control/<variant>, with the
# variant's config from results/tune-control/configs/<variant>.toml; the
# reference row `fixed` runs with the default config. Re-run it after an
# interruption: finished runs are skipped, unfinished ones resumed.
#
# Settings (environment variables):
#   VARIANTS  the variants, in order       fixed hc-period hoof-a hoof-b
#   SEEDS     tuning seeds, in order       100 101 102 103 104
#   BUILD     the commit to build the binary from    HEAD when first run
#   ENVS, FRAMES, JOBS, HYPERCTL, ALLOW_NEW_BINARY: as scripts/study.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VARIANTS=${VARIANTS:-fixed hc-period hoof-a hoof-b}
SEEDS=${SEEDS:-100 101 102 103 104}
# Seed by seed, so that every variant has the same seeds done whenever the
# script is interrupted: each step's matrix is the seeds so far (GROW).
first=${SEEDS%% *}
# One binary for the whole tuning, built from BUILD (default: HEAD) in a
# temporary worktree, so later commits and sessions run the same code.
export BUILD=${BUILD:-$(git rev-parse --short=12 HEAD)}
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-tune-$BUILD}
source scripts/pinned-binary.sh
for seed in $SEEDS; do
  for v in $VARIANTS; do
    if [ "$v" = fixed ]; then
      OUT=results/tune-control/fixed ROWS=fixed FOCUS=fixed CONFIG= SEEDS=$first-$seed GROW=1 scripts/study.sh
    else
      name=$(scripts/config-controller.sh "results/tune-control/configs/$v.toml")
      OUT=results/tune-control/$v ROWS=$name FOCUS=$name CONFIG=results/tune-control/configs/$v.toml SEEDS=$first-$seed GROW=1 scripts/study.sh
    fi
  done
done
