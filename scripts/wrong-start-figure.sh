#!/usr/bin/env bash
# wrong-start-figure.sh ROW: issue 37's trace figure, from the deciding
# matrix. `scripts/wrong-start-stats.py figure ROW` picks the runs by its
# stated rule (the stratum where ROW gains most over `fixed` from the same
# start, and there the seed of the median paired gain); this script writes
# the report row that draws them into results/reports.tsv (OUT
# results/wrong-start/figure, replacing an earlier one) and runs it with
# scripts/reports.sh: `hyperctl report` of that start's folder, narrowed to
# the environment, the seed, and the two rows, with --trace lr and the key
# the start got wrong. The figures are <env>_trace_lr.png and
# <env>_trace_<key>.png there.
#
#   ROW   a row of results/wrong-start/decide/<start>/: hoof, hc-narrow,
#         hc-wide or pb2 (the README names the one it shows)
#   HYPERCTL  as scripts/reports.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/wrong-start-settings.sh
row=${1:?usage: scripts/wrong-start-figure.sh ROW (hoof, hc-narrow, hc-wide or pb2)}
cfg=results/wrong-start/variants/configs/$row.toml
[ -f "$cfg" ] || { echo "wrong-start-figure: $cfg: no such row config" >&2; exit 2; }
read -r start env seed < <(/usr/bin/python3 scripts/wrong-start-stats.py figure "$row")
start_settings "$start" # sets iters and sets
key=${sets#*ppo.}
key=${key%%=*}
ctrl=$(scripts/config-controller.sh "$cfg")
out=results/wrong-start/figure
flags="--envs $env --seeds $seed --controllers fixed,$ctrl --trace lr,$key --focus $ctrl"
tsv=results/reports.tsv
tmp=$(mktemp)
awk -F'\t' -v out="$out" '$2 != out' "$tsv" > "$tmp"
printf '%s\t%s\t%s\n' "results/wrong-start/decide/$start" "$out" "$flags" >> "$tmp"
mv "$tmp" "$tsv"
echo "wrong-start-figure: $row from $start on $env, seed $seed: $out"
scripts/reports.sh "$out"
