#!/usr/bin/env bash
# wrong-start-decide.sh: issue 37's deciding matrix, whose rule the README
# states ("The rule of issue 37's deciding matrix"). From each kept start
# (results/wrong-start/keep.md), the five environments, seeds 0-4, 1M
# frames, four rows, each one resumable study (scripts/study.sh) into
# results/wrong-start/decide/<start>/<row>:
#
#   fixed   configs/<env>.toml with the start's settings
#   hoof    results/wrong-start/variants/configs/hoof.toml
#   HC      the HyperController variant the tuning chose (hc-narrow or
#           hc-wide: `scripts/wrong-start-stats.py tune` prints it)
#   pb2     results/wrong-start/variants/configs/pb2.toml (PB2 as one run)
#
# Seed by seed (study.sh GROW), so that every start and row has the same
# seeds done whenever it is interrupted: re-run it to continue. Niced; one
# binary for the whole matrix, by default the variants' (BUILD, read from
# their build.txt). The verdict: scripts/wrong-start-stats.py decide.
#
# Settings (environment variables):
#   HC        hc-narrow or hc-wide                  (required)
#   STARTS    the starts                            the kept ones of keep.md
#   SEEDS     seeds, in order                       0 1 2 3 4
#   BUILD, ENVS, FRAMES, JOBS, HYPERCTL: as scripts/study.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
source scripts/wrong-start-settings.sh
configs=results/wrong-start/variants/configs
case ${HC:-} in
  hc-narrow | hc-wide) ;;
  *) echo "wrong-start-decide: HC=${HC:-}: want hc-narrow or hc-wide, the choice of scripts/wrong-start-stats.py tune" >&2; exit 2 ;;
esac
STARTS=${STARTS:-$(kept_starts)}
SEEDS=${SEEDS:-0 1 2 3 4}
[ -n "$STARTS" ] || { echo "wrong-start-decide: no kept start in $keep" >&2; exit 2; }
if [ -z "${BUILD:-}" ]; then
  built=$(cat results/wrong-start/variants/*/*/build.txt 2>/dev/null | sort -u)
  [ "$(wc -l <<<"$built")" = 1 ] && [ -n "$built" ] || {
    echo "wrong-start-decide: the variants' build.txt files name ${built:-no commit}; set BUILD" >&2
    exit 2
  }
  BUILD=$built
fi
export BUILD
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-variants-$BUILD}
source scripts/pinned-binary.sh
first=${SEEDS%% *}
for seed in $SEEDS; do
  for row in fixed hoof "$HC" pb2; do
    cfg= name=fixed
    if [ "$row" != fixed ]; then
      cfg=$configs/$row.toml
      name=$(scripts/config-controller.sh "$cfg")
    fi
    for start in $STARTS; do
      start_settings "$start" # sets iters and sets
      # shellcheck disable=SC2154 # set by start_settings
      OUT=results/wrong-start/decide/$start/$row ROWS=$name FOCUS=$name CONFIG=$cfg SEEDS=$first-$seed GROW=1 \
        ITERS=$iters EXTRA="$sets" scripts/study.sh
    done
  done
done
scripts/wrong-start-stats.py decide
