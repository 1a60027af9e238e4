#!/usr/bin/env bash
# population-tune.sh: issue 36's tuning of the population methods, on the
# population seeds 0-4 only (the deciding study uses seeds 5-9). Each variant
# of results/population-tune/variants.tsv (a name and its `hyperctl
# population` flags: successive halving, PBT and PB2 with a late first
# exploit or t-test selection, MF-PBT) trains 8-member populations on
# HalfCheetah, Pusher and BipedalWalker at 1M frames per member, into
# results/population-tune/pop/<env>/<variant>-8/seed<S>.
# They stand against the best of the same 8 `fixed` seeds, issue 26's runs
# in results/population/fixed (all finished: none is trained here), and
# every pick is judged on 50 fresh episodes (population-compare.sh writes
# compare-8/report and compare-8/report-judge).
#
# The order is the PLAN's, one stage per line, "variants<TAB>seeds": the
# cheap successive-halving variants first (about 2.5M-4M frames a
# population) on seeds 0-4, then the anti-greedy PBT/PB2 variants (8M
# frames a population) seed by seed on seeds 0-2 only, so that each
# finished seed holds all three. MF-PBT and random search are rows of the
# deciding study whatever the tuning says and are not tuned (PLAN may add
# them: "mfpbt,random<TAB>0-4"). These limits are the README rule's, set
# for compute (8M frames a population on 2 cores) before any anti-greedy
# tuning run. Last, the comparison of every variant of the plan and the
# rule's choice (scripts/population-choose.py).
#
# Resumable and niced like population-study.sh, which it runs once per
# stage: re-run it after an interruption (finished populations are
# skipped). One binary for the whole tuning: BUILD, by default the commit
# in OUT/build.txt (HEAD when first run), built by pinned-binary.sh. Settings: PLAN
# (stages as above), and population-study.sh's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
table=results/population-tune/variants.tsv
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
export OUT=${OUT:-results/population-tune}
export BUILD=${BUILD:-$(cat "$OUT/build.txt" 2>/dev/null || git rev-parse --short=12 HEAD)}
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-study-$BUILD}
source scripts/pinned-binary.sh # builds it from BUILD when it is not there
export VARIANTS_FILE=$table
export FIXED=${FIXED:-results/population/fixed}
export SIZES=${SIZES:-8}
anti=pbt-late,pb2-late,pbt-ttest
PLAN=${PLAN:-"halving3-same	0-4
halving2-same	0-4
halving3	0-4
$anti	0-0
$anti	1-1
$anti	2-2"}
while IFS=$'\t' read -r methods seeds; do
  [ -n "$methods" ] || continue
  echo "population-tune: $methods on seeds $seeds ($(date -u +%FT%TZ))"
  METHODS=$methods SEEDS=$seeds scripts/population-study.sh
done <<<"$PLAN"
# The tuning tables, one per group of variants on the seeds it ran (the
# stages above compared their own variants and seeds only), each with
# issue 26's plain PBT-8 and PB2-8 on the same seeds beside them (POPS;
# not candidates of the choice), then the rule's choice.
export POPS=pbt=results/population/pop,pb2=results/population/pop
CMP=compare-halving METHODS=halving3-same,halving3,halving2-same,pbt,pb2 SEEDS=0-4 \
  scripts/population-compare.sh >>"$OUT/population-study.log" 2>&1
CMP=compare-antigreedy METHODS=$anti,pbt,pb2 SEEDS=0-2 \
  scripts/population-compare.sh >>"$OUT/population-study.log" 2>&1
scripts/population-choose.py
