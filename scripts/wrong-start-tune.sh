#!/usr/bin/env bash
# wrong-start-tune.sh: issue 37's choice of wrong starts. For each candidate
# start of results/wrong-start/starts.tsv, `fixed` from that start on the
# tuning seeds (default 100-104), every environment, at 1M frames: one
# resumable study (scripts/study.sh) per start, into
# results/wrong-start/tune/<start>. The defaults' reference on the same seeds
# is results/tune-control/fixed. A start is kept when fixed from it reaches
# less than 0.8 of fixed-from-defaults' IQM on at least 3 of 5 environments.
#
# Start by start, in the file's order, so that every finished start has all
# its seeds. Re-run after an interruption: finished runs are skipped,
# unfinished ones resumed. Niced (study.sh), one binary for the whole tuning.
#
# Settings (environment variables):
#   STARTS   the starts to run, in order      every start of starts.tsv
#   SEEDS    tuning seeds                     100-104
#   BUILD    the commit to build the binary from    HEAD when first run
#   ENVS, FRAMES, JOBS, HYPERCTL, ALLOW_NEW_BINARY: as scripts/study.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/wrong-start-settings.sh
STARTS=${STARTS:-$(grep -v '^#' "$table" | cut -f1 | tr '\n' ' ')}
SEEDS=${SEEDS:-100-104}
export BUILD=${BUILD:-$(git rev-parse --short=12 HEAD)}
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-wrongstart-$BUILD}
source scripts/pinned-binary.sh
for start in $STARTS; do
  start_settings "$start" # sets iters and sets
  OUT=results/wrong-start/tune/$start ROWS=fixed FOCUS=fixed CONFIG= SEEDS=$SEEDS \
    ITERS=$iters EXTRA="$sets" scripts/study.sh
done
