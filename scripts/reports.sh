#!/usr/bin/env bash
# reports.sh [OUT...]: (re)writes the committed reports of results/, each by
# its row of results/reports.tsv (the one place their commands live), with
# the hyperctl of this checkout. With OUT folders (e.g.
# results/study/report), only those rows; without, all. TestCommittedReports
# (cmd/hyperctl, in `make test`) fails, naming this script, when a committed
# report differs from what the current binary writes.
#
#   HYPERCTL  the binary to use   (default: built from this checkout into bin/hyperctl)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
if [ -z "${HYPERCTL:-}" ]; then
  go build -o bin/hyperctl ./cmd/hyperctl
  HYPERCTL=bin/hyperctl
fi
want=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wrote=0
declare -A named
while IFS=$'\t' read -r input out flags; do
  case "$input" in ''|'#'*) continue ;; esac
  pairs=()
  if [[ "$input" == *'*'* ]]; then
    for dir in $input; do
      [ -f "$dir/compare.json" ] || continue
      prefix=${input%%\**} suffix=${input#*\*}
      match=${dir#"$prefix"}
      match=${match%"$suffix"}
      pairs+=("$dir"$'\t'"${out/\*/$match}")
    done
  else
    pairs=("$input"$'\t'"$out")
  fi
  for pair in "${pairs[@]}"; do
    in=${pair%%$'\t'*} o=${pair#*$'\t'}
    if [ ${#want[@]} -gt 0 ]; then
      hit=0
      for w in "${want[@]}"; do [ "${w%/}" = "$o" ] && hit=1 && named[$w]=1; done
      [ $hit = 1 ] || continue
    fi
    if [[ "$in" == *.sh ]]; then
      rm -rf "$tmp/in"
      bash "$in" "$tmp/in" </dev/null
      in=$tmp/in
    fi
    read -r -a args <<< "$flags"
    # What report writes, and nothing it no longer writes.
    mkdir -p "$o"
    rm -f "$o"/*.png "$o"/report.md
    echo "reports: $HYPERCTL report $in ${args[*]} --out $o" >&2
    nice -n 19 "$HYPERCTL" --log-format json report "$in" "${args[@]}" --out "$o" </dev/null >/dev/null 2>"$tmp/log" \
      || { cat "$tmp/log" >&2; exit 1; }
    wrote=$((wrote + 1))
  done
done < results/reports.tsv
echo "reports: wrote $wrote reports" >&2
for w in "${want[@]}"; do
  [ -n "${named[$w]:-}" ] || { echo "reports: no row of results/reports.tsv writes $w (a row with a \* in INPUT needs INPUT's compare.json)" >&2; exit 2; }
done
