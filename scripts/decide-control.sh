#!/usr/bin/env bash
# decide-control.sh: issue 25's deciding matrix, 5 environments x ROWS x
# seeds 0-9 at 1M frames, with the rule written in the README (Study)
# before it ran. Seeds 0-9 were never used for tuning (scripts/
# tune-control.sh uses 100-104). One binary for the whole matrix, built
# from BUILD in a temporary worktree, so later commits and sessions run the
# same code; runs at nice 19, resumable (re-run it after an interruption).
# Rows may be added in later calls (the matrix grows; finished runs are
# kept).
#
# Settings (environment variables):
#   BUILD     the commit of the binary (required: the first call's)
#   ROWS      --controllers, e.g. fixed,hypercontroller@paper
#   SETS      extra --set KEY=VALUE assignments for these rows' runs (space-separated)
#   JOBS      parallel runs (default 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${BUILD:?set BUILD to the commit of the binary of the matrix}"
: "${ROWS:?set ROWS, the rows to run}"
export BUILD
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-decide-$BUILD}
if [ ! -x "$HYPERCTL" ]; then
  wt=$(mktemp -d)
  git worktree add --detach "$wt" "$BUILD" >/dev/null
  (cd "$wt" && bash scripts/setup.sh && go build -o "$HYPERCTL" ./cmd/hyperctl)
  git worktree remove --force "$wt"
fi
set_args=()
for s in ${SETS:-}; do
  set_args+=(--set "$s")
done
OUT=results/decide-control ROWS=$ROWS SEEDS=0-9 GROW=1 FOCUS=fixed JOBS=${JOBS:-2} \
  EXTRA="${set_args[*]:-}" scripts/study.sh
