#!/usr/bin/env bash
# untuned-study.sh: the untuned-environments study, whose rule and rows
# results/untuned/README.md states (written before any run). Hopper, Ant
# and Swimmer, 1M frames, CleanRL's defaults as the start:
#
#   single   the single-run rows, seeds 0-9, seed by seed (seed 0 of every
#            row and environment first), JOBS runs at once, into
#            OUT/single/<env>/<row>/seed<N>
#   fixed    `fixed` seeds 10-39 (with 0-9: the best-of-8 groups of
#            population seeds 0-4), into OUT/single/<env>/fixed
#   pop      the populations (8 members), population seed by seed, each
#            with JOBS members at once, into OUT/pop/<env>/<row>-8/seed<S>
#
# Every run is trained and judged by one binary, built from BUILD (default:
# OUT/build.txt) into bin/hyperctl-untuned-<BUILD> (scripts/pinned-binary.sh).
# Each run is judged as it finishes (hyperctl judge: its policy-final on 50
# fresh episodes; for a population, its best member's), and with COMMIT=1
# committed then (git add of its folder, one commit per run). Resumable:
# finished and judged runs are skipped, unfinished ones resumed; niced.
#
# Settings (environment variables):
#   PHASES   which phases, in order        single fixed pop
#   ENVS     environments                  hopper ant swimmer
#   SEEDS    single-run seeds               0 1 2 3 4 5 6 7 8 9
#   POP_SEEDS population seeds              0 1 2 3 4
#   ROWS     single-run rows                all six, in the README's order
#   POP_ROWS population rows                pbt-late halving3 halving3-same random
#   FRAMES   frames a run (a member)        1000000
#   JOBS     runs (members) at once         2
#   OUT      the study's folder             results/untuned
#   COMMIT   1: commit each run as it finishes (the study's worktree)
#   BUILD, HYPERCTL: the pinned binary's commit, and its path
#
# A small dry check of the script (not the study: its own folder, few
# frames; the folder needs the study's configs/). Halving's first rung must
# hold one iteration of the largest batch (6,000 frames), and pbt-late's
# first exploit (400,000 frames) needs FRAMES above it, so it is left out:
#   mkdir -p /tmp/untuned-dry && cp -r results/untuned/configs /tmp/untuned-dry/
#   OUT=/tmp/untuned-dry BUILD=$(git rev-parse --short=12 HEAD) ENVS=swimmer SEEDS=0 \
#     FIXED_SEEDS=1 POP_SEEDS=0 POP_ROWS="halving3 halving3-same random" \
#     FRAMES=65536 READY=16384 JOBS=1 scripts/untuned-study.sh
# (its pop phase alone, with the study's binary: 3 min of wall time on 2
# cores beside the study, 2026-12-07).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"

export OUT=${OUT:-results/untuned}
export FRAMES=${FRAMES:-1000000}
export READY=${READY:-50000}
export COMMIT=${COMMIT:-0}
JOBS=${JOBS:-2}
PHASES=${PHASES:-single fixed pop}
ENVS=${ENVS:-hopper ant swimmer}
SEEDS=${SEEDS:-0 1 2 3 4 5 6 7 8 9}
FIXED_SEEDS=${FIXED_SEEDS:-$(seq -s ' ' 10 39)}
POP_SEEDS=${POP_SEEDS:-0 1 2 3 4}
ROWS=${ROWS:-fixed hoof hoof@seven-keys hypercontroller@hc-narrow kladaptive pb2@seven-keys}
POP_ROWS=${POP_ROWS:-pbt-late halving3 halving3-same random}

if [ -z "${BUILD:-}" ]; then
  BUILD=$(cat "$OUT/build.txt" 2>/dev/null) || { echo "untuned-study: set BUILD (the commit of the study's binary) for the first run" >&2; exit 2; }
fi
export BUILD
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-untuned-$BUILD}

# row_flags ROW: the train flags of a single-run row (README's table).
row_flags() {
  case $1 in
    fixed) echo "--controller fixed" ;;
    hoof) echo "--controller hoof" ;;
    hoof@seven-keys) echo "--controller hoof --config results/wrong-start/variants/configs/hoof.toml" ;;
    hypercontroller@hc-narrow) echo "--controller hypercontroller --config results/tune-control/configs/hc-narrow.toml" ;;
    kladaptive) echo "--controller kladaptive" ;;
    pb2@seven-keys) echo "--controller pb2 --config results/wrong-start/variants/configs/pb2.toml" ;;
    *) echo "untuned-study: unknown single-run row $1" >&2; return 2 ;;
  esac
}

# pop_flags ROW: the population flags of a population row (README's table).
pop_flags() {
  case $1 in
    pbt-late) echo "--method pbt --first-exploit 400000 --ready $READY" ;;
    halving3) echo "--method halving --eta 3" ;;
    halving3-same) echo "--method halving --eta 3 --init same" ;;
    random) echo "--method random" ;;
    *) echo "untuned-study: unknown population row $1" >&2; return 2 ;;
  esac
}

# commit_run DIR WHAT: with COMMIT=1, commit DIR alone (one commit per run;
# a lock keeps parallel jobs' commits apart).
commit_run() {
  [ "$COMMIT" = 1 ] || return 0
  (
    flock 9
    git add -- "$1"
    git commit -q -m "untuned study: $2 finished and judged (binary $BUILD)" -- "$1"
  ) 9>"$(git rev-parse --git-common-dir)/untuned-commit.lock"
}

hc() { nice -n 19 "$HYPERCTL" --log-format json "$@"; }

# one_run ENV ROW SEED: train (or resume) one single run, judge it, commit it.
one_run() {
  local env=$1 row=$2 seed=$3 dir
  dir=$OUT/single/$env/$row/seed$seed
  if [ -f "$dir/summary.json" ] && [ -f "$dir/judge.json" ]; then
    return 0
  fi
  mkdir -p "$(dirname "$dir")"
  # shellcheck disable=SC2046 # the row's flags split into words
  # The log keeps every start (>>): its first line is the run's first start,
  # which rule-first.py compares with the rule's commit. It becomes the run
  # folder's train.log once the run is finished and judged.
  hc train --env "$env" --seed "$seed" --frames "$FRAMES" --iterations 1000 --threads 1 \
    $(row_flags "$row") --resume --out "$dir" >>"$dir.log" 2>&1 ||
    { echo "untuned-study: $dir failed; see $dir.log" >&2; return 1; }
  hc judge "$dir" >>"$dir.log" 2>&1 || { echo "untuned-study: judging $dir failed; see $dir.log" >&2; return 1; }
  mv "$dir.log" "$dir/train.log"
  commit_run "$dir" "$env $row seed $seed"
  echo "untuned-study: $dir done ($(date -u +%FT%TZ))"
}

# one_pop ENV ROW SEED: train (or continue) one population, judge its pick,
# commit it.
one_pop() {
  local env=$1 row=$2 seed=$3 dir
  dir=$OUT/pop/$env/$row-8/seed$seed
  if [ -f "$dir/result.json" ] && [ -n "$(find "$dir" -name judge.json -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  mkdir -p "$(dirname "$dir")"
  # shellcheck disable=SC2046 # the row's flags split into words
  hc population --env "$env" $(pop_flags "$row") --size 8 --seed "$seed" --frames "$FRAMES" \
    --iterations 1000 --jobs "$JOBS" --config "$OUT/configs/population.toml" --out "$dir" >>"$dir.log" 2>&1 ||
    { echo "untuned-study: $dir failed; see $dir.log and its members' train.log" >&2; return 1; }
  hc judge "$dir" >>"$dir.log" 2>&1 || { echo "untuned-study: judging $dir's pick failed; see $dir.log" >&2; return 1; }
  rm -f "$dir.log"
  commit_run "$dir" "$env $row-8 population seed $seed"
  echo "untuned-study: $dir done ($(date -u +%FT%TZ))"
}

case ${1:-} in
  one-run) shift; one_run "$@"; exit ;;
esac

source scripts/pinned-binary.sh # builds HYPERCTL from BUILD when it is not there
if study_build "$OUT" untuned-study; then
  commit_run "$OUT/build.txt" "the study's binary"
fi
echo "untuned-study: phases $PHASES; $ENVS; binary $BUILD ($(date -u +%FT%TZ))"

# run_parallel: the single-run jobs read from stdin ("env row seed" lines),
# JOBS at once, each by this script's one-run.
run_parallel() { xargs -P "$JOBS" -L 1 "$PWD/scripts/untuned-study.sh" one-run; }
for phase in $PHASES; do
  case $phase in
    single)
      for seed in $SEEDS; do
        for env in $ENVS; do
          for row in $ROWS; do
            echo "$env $row $seed"
          done
        done
      done | run_parallel
      ;;
    fixed)
      for seed in $FIXED_SEEDS; do
        for env in $ENVS; do
          echo "$env fixed $seed"
        done
      done | run_parallel
      ;;
    pop)
      for seed in $POP_SEEDS; do
        for env in $ENVS; do
          for row in $POP_ROWS; do
            one_pop "$env" "$row" "$seed"
          done
        done
      done
      ;;
    *) echo "untuned-study: unknown phase $phase (want single, fixed, pop)" >&2; exit 2 ;;
  esac
done
echo "untuned-study: phases $PHASES done ($(date -u +%FT%TZ))"
