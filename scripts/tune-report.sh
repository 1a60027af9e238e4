#!/usr/bin/env bash
# tune-report.sh DIR: composes the input of results/tune-control/report, one
# report over the variants of scripts/tune-control.sh, each variant a row
# (named controller@variant, e.g. hoof@hoof-b), on the tuning seeds, with
# issue 25's statistics against `fixed`. It copies the finished runs into DIR
# (DIR/<env>/<row>/seed<N>) with a compare.json naming them; the report's
# command is its row in results/reports.tsv, run by scripts/reports.sh:
#   scripts/reports.sh results/tune-control/report
#
#   VARIANTS  the rows        fixed and every variant with a config in results/tune-control/configs
set -euo pipefail
tmp=$(realpath -m "${1:?usage: scripts/tune-report.sh DIR (an empty or new folder)}")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VARIANTS=${VARIANTS:-fixed $(cd results/tune-control/configs && ls *.toml | sed 's/\.toml$//' | tr '\n' ' ')}
mkdir -p "$tmp"
envs=() seeds=() rows=()
for v in $VARIANTS; do
  for run in results/tune-control/"$v"/*/*/seed*; do
    [ -f "$run/summary.json" ] || continue
    env=$(basename "$(dirname "$(dirname "$run")")")
    ctrl=$(basename "$(dirname "$run")")
    seed=$(basename "$run")
    row=$ctrl@$v # the report names a run by its controller, and a variant by its folder
    [ "$v" = fixed ] && row=fixed
    mkdir -p "$tmp/$env/$row"
    cp -r "$run" "$tmp/$env/$row/$seed"
    envs+=("$env") seeds+=("${seed#seed}") rows+=("$row")
  done
done
uniq_csv() { printf '%s\n' "$@" | sort -un | paste -sd, -; }
uniq_words() { printf '%s\n' "$@" | sort -u | paste -sd, -; }
printf '{"envs": ["%s"], "controllers": ["%s"], "seeds": [%s], "frames": 1000000, "iterations": 1000, "command": "scripts/tune-report.sh"}\n' \
  "$(uniq_words "${envs[@]}" | sed 's/,/", "/g')" "$(uniq_words "${rows[@]}" | sed 's/,/", "/g')" "$(uniq_csv "${seeds[@]}")" > "$tmp/compare.json"
