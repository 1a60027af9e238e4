#!/usr/bin/env bash
# decide-control.sh: issue 25's deciding matrix, 5 environments x ROWS x
# seeds 0-9 at 1M frames, with the rule written in docs/study.md
# before it ran. Seeds 0-9 were never used for tuning (scripts/
# tune-control.sh uses 100-104). One binary for the whole matrix, built
# from BUILD in a temporary worktree, so later commits and sessions run the
# same code; runs at nice 19, resumable (re-run it after an interruption).
# Rows may be added in later calls (the matrix grows; finished runs are
# kept).
#
# Settings (environment variables):
#   BUILD     the commit of the binary (required: the first call's)
#   ROWS      --controllers, e.g. fixed,hypercontroller@paper (may be empty)
#   CONFIG_ROWS  rows defined by a config file, space-separated row=file pairs,
#             e.g. "hoof@tuned=results/tune-control/configs/hoof-c.toml"
#   SETS      extra --set KEY=VALUE assignments for these rows' runs (space-separated)
#   JOBS      parallel runs (default 2)
#   ENVS, FRAMES, OUT  for a tiny check of the config rows only (defaults: the
#             five environments, 1000000, results/decide-control), e.g.
#             ROWS= CONFIG_ROWS=... ENVS=reacher FRAMES=4096 OUT=/tmp/dc
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
: "${BUILD:?set BUILD to the commit of the binary of the matrix}"
export BUILD
export FRAMES=${FRAMES:-1000000}
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-decide-$BUILD}
source scripts/pinned-binary.sh
set_args=()
for s in ${SETS:-}; do
  set_args+=(--set "$s")
done
if [ -n "${ROWS:-}" ]; then
  OUT=results/decide-control ROWS=$ROWS SEEDS=0-9 GROW=1 FOCUS=fixed JOBS=${JOBS:-2} \
    EXTRA="${set_args[*]:-}" scripts/study.sh
fi

# Rows defined by a config file (CONFIG_ROWS="row=file ..."): each run is
# `hyperctl train --config file` into results/decide-control/<env>/<row>/seed<N>,
# seed by seed over the environments, JOBS at a time, skipping finished runs
# and resuming unfinished ones. The report names such a row by its folder
# (controller@variant).
read -r -a envs <<< "${ENVS:-halfcheetah pusher bipedalwalker inverteddoublependulum reacher}"
out=${OUT:-results/decide-control}
jobs=()
for pair in ${CONFIG_ROWS:-}; do
  row=${pair%%=*} cfg=${pair#*=}
  [ -f "$cfg" ] || { echo "decide-control: CONFIG_ROWS: $row: no config file $cfg" >&2; exit 1; }
  ctrl=$(scripts/config-controller.sh "$cfg")
  [ "${row%%@*}" = "$ctrl" ] || { echo "decide-control: CONFIG_ROWS: row $row must be named $ctrl@<variant> ($cfg's controller)" >&2; exit 1; }
  for seed in 0 1 2 3 4 5 6 7 8 9; do
    for env in "${envs[@]}"; do
      dir=$out/$env/$row/seed$seed
      [ -f "$dir/summary.json" ] && continue
      jobs+=("$env $row $seed $cfg $dir")
    done
  done
done
if [ ${#jobs[@]} -gt 0 ]; then
  echo "decide-control: ${#jobs[@]} config-row runs, ${JOBS:-2} at a time ($(date -u +%FT%TZ))"
  printf '%s\n' "${jobs[@]}" | xargs -P "${JOBS:-2}" -L 1 bash -c '
    mkdir -p "$(dirname "$5")"
    nice -n 19 "$HYPERCTL" --log-format json train --env "$1" --controller "${2%%@*}" --seed "$3" --config "$4" \
      --frames "$FRAMES" --iterations 1000 --threads 1 --resume --out "$5" > "$5.log" 2>&1 \
      && rm -f "$5.log" || { echo "decide-control: $5 failed, see $5.log" >&2; exit 1; }' _ || echo "decide-control: some runs failed; re-run to resume them" >&2
fi
# The manifest names every row, so the report counts what is missing.
all_rows=$(/usr/bin/python3 - "$out/compare.json" "${CONFIG_ROWS:-}" <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1])) if os.path.exists(sys.argv[1]) else {"controllers": []}
for pair in sys.argv[2].split():
    row = pair.split("=", 1)[0]
    if row not in m["controllers"]:
        m["controllers"].append(row)
json.dump(m, open(sys.argv[1], "w"), indent=2)
print(",".join(m["controllers"]))
PY
)
echo "decide-control: rows $all_rows"
nice -n 19 "$HYPERCTL" report "$out" --focus fixed --out "$out/report"
