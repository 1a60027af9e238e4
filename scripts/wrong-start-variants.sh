#!/usr/bin/env bash
# wrong-start-variants.sh: issue 37's tuning of the controllers' variants,
# on the tuning seeds 100-104 only (the deciding matrix uses seeds 0-4).
# Each variant of results/wrong-start/variants/configs/<variant>.toml (HOOF,
# HyperController over a narrow and a wide space, PB2 as one run; every one
# also tunes the keys the kept starts got wrong) trains from each kept start
# (results/wrong-start/keep.md, the rule of scripts/wrong-start-keep.py) on
# the five environments at 1M frames: one resumable study (scripts/study.sh)
# per variant and start, into results/wrong-start/variants/<variant>/<start>.
#
# Seed by seed, so that every variant and start has the same seeds done
# whenever it is interrupted (study.sh GROW): re-run it to continue. Niced,
# one binary for the whole tuning (BUILD, default HEAD when first run).
#
# Settings (environment variables):
#   VARIANTS  the variants, in order       hoof hc-narrow hc-wide pb2
#   STARTS    the starts                   the kept ones of keep.md
#   SEEDS     tuning seeds, in order       100 101 102 103 104
#   OUTDIR    where the studies go         results/wrong-start/variants
#   BUILD, ENVS, FRAMES, JOBS, HYPERCTL, ALLOW_NEW_BINARY: as scripts/study.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/wrong-start-settings.sh
dir=results/wrong-start/variants
VARIANTS=${VARIANTS:-hoof hc-narrow hc-wide pb2}
STARTS=${STARTS:-$(kept_starts)}
SEEDS=${SEEDS:-100 101 102 103 104}
[ -n "$STARTS" ] || { echo "wrong-start-variants: no kept start in $keep" >&2; exit 2; }
first=${SEEDS%% *}
export BUILD=${BUILD:-$(git rev-parse --short=12 HEAD)}
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-variants-$BUILD}
source scripts/pinned-binary.sh
for seed in $SEEDS; do
  for v in $VARIANTS; do
    cfg=$dir/configs/$v.toml
    name=$(scripts/config-controller.sh "$cfg")
    for start in $STARTS; do
      start_settings "$start" # sets iters and sets
      # shellcheck disable=SC2154 # set by start_settings
      OUT=${OUTDIR:-$dir}/$v/$start ROWS=$name FOCUS=$name CONFIG=$cfg SEEDS=$first-$seed GROW=1 \
        ITERS=$iters EXTRA="$sets" scripts/study.sh
    done
  done
done
