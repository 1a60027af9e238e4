#!/usr/bin/env bash
# population-tune.sh: issue 36's tuning of the population methods, on the
# population seeds 0-4 only (the deciding study uses seeds 5-9). Each variant
# of results/population-tune/variants.tsv (a name and its `hyperctl
# population` flags: successive halving, PBT and PB2 with a late first
# exploit or t-test selection, MF-PBT) trains 8-member populations on
# HalfCheetah, Pusher and BipedalWalker at 1M frames per member, variant
# after variant, into results/population-tune/pop/<env>/<variant>-8/seed<S>.
# They stand against the best of the same 8 `fixed` seeds, issue 26's runs
# in results/population/fixed (all finished: none is trained here), and
# every pick is judged on 50 fresh episodes (population-compare.sh writes
# compare-8/report and compare-8/report-judge).
#
# Resumable and niced like population-study.sh, which it runs: re-run it
# after an interruption. One binary for the whole tuning (BUILD, default
# HEAD when first run; scripts/study-binary.sh records it in build.txt).
# Settings: VARIANTS (names, comma-separated; default: every line of the
# table, in order), SEEDS (default 0-4), and population-study.sh's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
table=results/population-tune/variants.tsv
export OUT=${OUT:-results/population-tune}
export VARIANTS_FILE=$table
export FIXED=${FIXED:-results/population/fixed}
export METHODS=${VARIANTS:-$(grep -v '^#' "$table" | cut -f1 | paste -sd,)}
export SIZES=${SIZES:-8} SEEDS=${SEEDS:-0-4}
exec scripts/population-study.sh
