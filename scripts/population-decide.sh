#!/usr/bin/env bash
# population-decide.sh: issue 36's deciding study, whose rule the README
# states ("The rule of issue 36's deciding study"). Population seeds 5-9
# (member seeds 40-79, used by no run before), HalfCheetah, Pusher and
# BipedalWalker, 8 members × 1M frames, into results/population-decide:
#
#   random, mfpbt     rows whatever the tuning says (random search over 8
#                     configurations; MF-PBT with the paper's settings,
#                     trained by its own binary into OUT/mfpbt: see below)
#   fixed             best-of-8: `fixed` seeds 40-79, trained here into
#                     results/population-decide/fixed after the first row
#   CHOSEN            the anti-greedy PBT/PB2 variant and the successive-
#                     halving variant with the highest aggregate IQM of the
#                     judged score on seeds 0-4
#                     (results/population-tune/compare-8/report-judge), named
#                     as in results/population-tune/variants.tsv,
#                     comma-separated; empty until the tuning has chosen
#                     (scripts/population-choose.py prints it). CHOSEN=auto
#                     takes that script's choice, and refuses while it has
#                     none; with ROWS=chosen only these rows run, so that
#                     `scripts/population-tune.sh && CHOSEN=auto
#                     ROWS=chosen scripts/population-decide.sh` starts them
#                     as soon as the tuning ends, beside a stream that runs
#                     the other rows
#
# It is population-study.sh with these settings: resumable (run it again
# after an interruption; finished populations and runs are skipped), niced,
# and one binary for the study: the tuning's (BUILD, default the one in
# results/population-tune/build.txt), so tuning and decision train with
# the same code. The exception is MF-PBT: that binary's command line
# passed PBT's --resample default (0.25) to MF-PBT, which then resampled
# where its paper only perturbs (fixed on main in 56997f0f). Its rows are
# trained by the tuning's commit with that one fix (MFPBT_BUILD, default
# the commit scripts/mfpbt-build.sh makes: experiment/population/define.go
# alone differs) into
# OUT/mfpbt/pop, a study folder of its own with its own build.txt, beside
# the shared `fixed` runs (FIXED=OUT/fixed, all finished first);
# population-compare.sh finds them there through POPS. ROWS=mfpbt runs
# that row alone. Every pick is judged on 50 fresh episodes by the
# comparison step (population-compare.sh with RETRAIN unset: every run
# here keeps its policy-best).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
export BUILD=${BUILD:-$(cat results/population-tune/build.txt)}
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-study-$BUILD}
source scripts/pinned-binary.sh # builds it from BUILD when it is not there
export OUT=${OUT:-results/population-decide}
export VARIANTS_FILE=results/population-tune/variants.tsv
export SIZES=8 SEEDS=${SEEDS:-5-9}
CHOSEN=${CHOSEN:-}
if [ "$CHOSEN" = auto ]; then
  CHOSEN=$(scripts/population-choose.py | sed -n 's/^CHOSEN=//p' || true)
  [ -n "$CHOSEN" ] || { echo "population-decide: CHOSEN=auto: scripts/population-choose.py has no choice yet" >&2; exit 1; }
  echo "population-decide: the tuning chose $CHOSEN (scripts/population-choose.py)"
fi
source scripts/mfpbt-build.sh
mfpbt_rows() { # MF-PBT, by its own binary into $OUT/mfpbt
  local build=${MFPBT_BUILD:-}
  if [ -z "$build" ]; then
    build=$(mfpbt_build_commit) || exit 1
    build=${build:0:12}
  fi
  local BUILD=$build HYPERCTL=$PWD/bin/hyperctl-study-$build
  source scripts/pinned-binary.sh # builds it from that commit when it is not there
  # FIXED before OUT: a command's assignments expand left to right, so
  # FIXED=$OUT/fixed after OUT=$OUT/mfpbt would name mfpbt/fixed and train
  # all 120 fixed runs again there.
  FIXED=$OUT/fixed OUT=$OUT/mfpbt BUILD=$build HYPERCTL=$PWD/bin/hyperctl-study-$build METHODS=mfpbt \
    scripts/population-study.sh
}
case ${ROWS:-all} in
  all)
    METHODS=random${CHOSEN:+,$CHOSEN} scripts/population-study.sh
    mfpbt_rows ;;
  chosen)
    [ -n "$CHOSEN" ] || { echo "population-decide: ROWS=chosen needs CHOSEN" >&2; exit 2; }
    METHODS=$CHOSEN scripts/population-study.sh ;;
  mfpbt) mfpbt_rows ;;
  *) echo "population-decide: ROWS=$ROWS: want all, chosen or mfpbt" >&2; exit 2 ;;
esac
