#!/usr/bin/env bash
# population-study.sh: issue 26's comparison at equal compute, resumable and
# niced. A population of N members trains N × FRAMES frames; against it
# stand N `fixed` runs of FRAMES frames each, of which the best by its own
# final evaluation is taken, as the population's best member is taken by
# its own final evaluation (result.json, "best").
#
#   populations  ENVS x METHODS x SIZES x SEEDS, each `hyperctl population`
#                --size N --seed S --frames FRAMES --ready READY, into
#                OUT/pop/<env>/<method>-<N>/seed<S>; member k trains with
#                seed S·N + k
#   fixed        `hyperctl compare --controllers fixed` on ENVS with seeds
#                (max SIZES)·A … (max SIZES)·(B + 1) − 1 for SEEDS=A-B, into
#                FIXED (default OUT/fixed): the runs
#                of population seed S and size N are seeds S·N … S·N + N − 1,
#                the seeds its members started from
#   report       per size N, scripts/population-compare.sh: the best member
#                of each population against the best of its N fixed runs,
#                each picked by its own final evaluation, in OUT/compare-<N>,
#                and `hyperctl report` on it with fixed-best<N> as reference
#
# Resumable: every population and the compare continue where they stopped
# (Ctrl-C checkpoints), finished ones are skipped, so run it again after an
# interruption. Everything runs at nice 19. The binary is built once per
# commit into bin/ (git-ignored); a re-run on another commit refuses to mix
# binaries unless ALLOW_NEW_BINARY=1 (scripts/study-binary.sh).
#
# Settings (environment variables), with issue 26's values as defaults:
#   OUT      output folder            results/population
#   ENVS     environments             halfcheetah,pusher,bipedalwalker
#   METHODS  population methods       pb2,pbt  (or variants of VARIANTS_FILE)
#   VARIANTS_FILE  named variants: "name<TAB>population flags" per line
#   FIXED    the fixed runs' folder   OUT/fixed  (another study's, to share
#                                     its runs: then every run needed must be
#                                     finished there; none is trained)
#   SIZES    population sizes         4,8
#   SEEDS    population seeds         0-4 (a range A-B)
#   FRAMES   frames per member        1000000
#   READY    frames per generation    50000
#   ITERS    iterations cap           FRAMES/1000: the paper's space never picks fewer than 1000 frames
#   JOBS     processes at once        2
#   HYPERCTL use this binary instead of building one (BUILD: its commit)
#
# The dry check of the script itself (one environment, population 2, 20,000
# frames; a few minutes):
#   OUT=/tmp/popstudy-dry ENVS=reacher METHODS=pb2 SIZES=2 SEEDS=0-0 FRAMES=24000 READY=6000 scripts/population-study.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"

source scripts/population-settings.sh
maxsize=0
for n in ${SIZES//,/ }; do
  if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 2 ]; then
    echo "population-study: SIZES=$SIZES: want sizes >= 2" >&2
    exit 2
  fi
  [ "$n" -gt "$maxsize" ] && maxsize=$n
done

source scripts/study-binary.sh
hc() { nice -n 19 "$bin" --log-format json "$@"; }

start=$(date -u +%FT%TZ)
echo "population-study: $ENVS x $METHODS x sizes $SIZES x seeds $SEEDS, $FRAMES frames per member, ready every $READY, $JOBS jobs, into $OUT ($start)"

# 1. The populations, one after another (each uses JOBS processes), the
#    largest size first and METHODS in their order, so that the goal's
#    comparison (PB2 with 8 members) is complete first when the study runs
#    over several sessions; 2. the fixed runs (the seeds every population's
#    members started from) right after the first size and method.
populations() { # method size
  for env in ${ENVS//,/ }; do
    for s in $(seq "$first" "$last"); do
      dir="$OUT/pop/$env/$1-$2/seed$s"
      echo "population-study: $dir"
      # shellcheck disable=SC2046 # the variant's flags split into words
      hc population --env "$env" $(method_flags "$1") --size "$2" --seed "$s" --frames "$FRAMES" \
        --iterations "$ITERS" --jobs "$JOBS" --out "$dir" >>"$OUT/population-study.log" 2>&1 \
        || { echo "population-study: $dir failed; see $OUT/population-study.log and its members' train.log" >&2; exit 1; }
    done
  done
}
fixed_runs() {
  local seeds="$(( maxsize * first ))-$(( maxsize * (last + 1) - 1 ))"
  if [ "$FIXED" != "$OUT/fixed" ]; then # another study's runs: used, never added to
    for env in ${ENVS//,/ }; do
      for k in $(seq $(( maxsize * first )) $(( maxsize * (last + 1) - 1 ))); do
        [ -f "$FIXED/$env/fixed/seed$k/summary.json" ] || {
          echo "population-study: FIXED=$FIXED has no finished $env/fixed/seed$k; a study shares only finished fixed runs (leave FIXED unset to train its own)" >&2
          exit 2
        }
      done
    done
    echo "population-study: $FIXED (seeds $seeds): finished, shared"
    return
  fi
  echo "population-study: $FIXED (seeds $seeds)"
  hc compare --env "$ENVS" --controllers fixed --seeds "$seeds" \
    --frames "$FRAMES" --iterations "$ITERS" --jobs "$JOBS" --out "$FIXED" >>"$OUT/population-study.log" 2>&1 \
    || { echo "population-study: $FIXED failed; see $OUT/population-study.log" >&2; exit 1; }
}
sizes_desc=$(tr ',' '\n' <<<"$SIZES" | sort -rn)
fixed_done=
for n in $sizes_desc; do
  for m in ${METHODS//,/ }; do
    populations "$m" "$n"
    if [ -z "$fixed_done" ]; then
      fixed_runs
      fixed_done=1
    fi
  done
done

# 3. Per size, the best member of each population against the best of its
#    N fixed runs, each picked by its own final evaluation, and the report.
OUT=$OUT ENVS=$ENVS METHODS=$METHODS SIZES=$SIZES SEEDS=$SEEDS FRAMES=$FRAMES READY=$READY ITERS=$ITERS FIXED=$FIXED VARIANTS_FILE=$VARIANTS_FILE \
  scripts/population-compare.sh >>"$OUT/population-study.log" 2>&1 \
  || { echo "population-study: the comparison failed; see $OUT/population-study.log" >&2; exit 1; }
echo "population-study: started $start, done $(date -u +%FT%TZ)"
