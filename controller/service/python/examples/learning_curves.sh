#!/usr/bin/env bash
# learning_curves.sh [OUTDIR] runs the Python PPO (ppo_cartpole.py) on CartPole
# once per seed with lr and clip from `hyperctl serve` (HyperController,
# interval 5) and once with CleanRL's fixed values, one run at a time under
# nice, then summarises the curves (curves.png, curves.md) with
# controller/service/internal/curves. Environment: SEEDS (default "1 2 3"),
# ITERATIONS (default 300), HYPERCTL (default: go build ./cmd/hyperctl).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
cd "$root"
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
out="${1:-results/serve/curves}"
seeds="${SEEDS:-1 2 3}"
iterations="${ITERATIONS:-300}"
py=/usr/bin/python3
ppo=controller/service/python/examples/ppo_cartpole.py
mkdir -p "$out"

tmp="$(mktemp -d)"
bin="${HYPERCTL:-}"
if [ -z "$bin" ]; then
  bin="$tmp/hyperctl"
  go build -o "$bin" ./cmd/hyperctl
fi
"$bin" --log-format json serve --listen 127.0.0.1:0 --state "$tmp/state" --addr-file "$tmp/addr" 2>"$tmp/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 600); do [ -s "$tmp/addr" ] && break; sleep 0.1; done
[ -s "$tmp/addr" ] || { cat "$tmp/serve.log" >&2; echo "learning_curves: hyperctl serve did not start" >&2; exit 1; }
url="http://$(cat "$tmp/addr")"

for s in $seeds; do
  echo "seed $s: hypercontroller" >&2
  nice -n 19 "$py" "$ppo" --url "$url" --method hypercontroller --interval 5 --seed "$s" \
    --iterations "$iterations" --session-id "curve-seed$s" --out "$out/hypercontroller-seed$s.csv"
  echo "seed $s: fixed" >&2
  nice -n 19 "$py" "$ppo" --fixed --seed "$s" --iterations "$iterations" --out "$out/fixed-seed$s.csv"
done
go run ./controller/service/internal/curves "$out"
echo "learning_curves: wrote $out/curves.png and $out/curves.md" >&2
