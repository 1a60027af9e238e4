#!/usr/bin/env bash
# resume-check.sh: kill-and-resume against uninterrupted runs, through the
# binary, on all five environments. For each environment it trains a run
# uninterrupted, then the same run killed with SIGKILL KILLS times at
# random rows (seeded) and resumed with --resume after each kill, and counts
# the rows of train.csv and eval.csv that are identical to the
# uninterrupted run's, timing columns (wall_time_s, controller_time_s)
# aside.
#
#   scripts/resume-check.sh [OUT]    (default OUT: a temporary folder)
#
# Environment: ITERS (default 60), KILLS (default 3), CONTROLLER (default
# hypercontroller), HYPERCTL (default: build bin/hyperctl).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
ITERS=${ITERS:-60}
KILLS=${KILLS:-3}
CONTROLLER=${CONTROLLER:-hypercontroller}
OUT=${1:-$(mktemp -d)}
if [ -z "${HYPERCTL:-}" ]; then
  go build -o bin/hyperctl ./cmd/hyperctl
  HYPERCTL=bin/hyperctl
fi
RANDOM=20 # seeded kill points

source scripts/same-rows.sh

rows() { [ -f "$1" ] && echo $(( $(wc -l < "$1") - 1 )) || echo 0; }

echo "| env | kills (row at each) | train.csv identical | eval.csv identical |"
echo "|---|---|---|---|"
for env in halfcheetah bipedalwalker pusher inverteddoublependulum reacher; do
  dir="$OUT/$env"
  mkdir -p "$dir"
  cfg="$dir/config.toml"
  cat > "$cfg" <<EOF
env = "$env"
seed = 0
iterations = $ITERS
eval_every = 5
checkpoint_every = 10

[ppo]
epochs = 4
minibatch_size = 64

[controller]
name = "$CONTROLLER"

[[controller.tune]]
name = "batch_size"
low = 500.0
high = 2000.0

[[controller.tune]]
name = "clip"
low = 0.1
high = 0.5

[[controller.tune]]
name = "gae_lambda"
low = 0.9
high = 1.0

[[controller.tune]]
name = "lr"
low = 1e-5
high = 1e-3
EOF
  "$HYPERCTL" --log-format json train --config "$cfg" --out "$dir/ref" > /dev/null 2>"$dir/ref.log"
  killed_at=()
  for k in $(seq "$KILLS"); do
    from=$(rows "$dir/killed/train.csv")
    # A random row 1 to 20 rows further on, before the end.
    at=$(( from + 1 + RANDOM % 20 ))
    at=$(( at < ITERS ? at : ITERS - 1 ))
    "$HYPERCTL" --log-format json train --config "$cfg" --out "$dir/killed" --resume > /dev/null 2>>"$dir/killed.log" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && [ "$(rows "$dir/killed/train.csv")" -lt "$at" ]; do sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    killed_at+=("$(rows "$dir/killed/train.csv")")
  done
  "$HYPERCTL" --log-format json train --config "$cfg" --out "$dir/killed" --resume > /dev/null 2>>"$dir/killed.log"
  echo "| $env | $KILLS (${killed_at[*]}) | $(same_rows "$dir/ref/train.csv" "$dir/killed/train.csv") | $(same_rows "$dir/ref/eval.csv" "$dir/killed/eval.csv") |"
done
