#!/usr/bin/env bash
# wrong-start-finish.sh: issue 37's write-up steps once its deciding matrix
# (scripts/wrong-start-decide.sh) and the check at the defaults
# (results/wrong-start/defaults/<variant>) have all their runs. It refuses,
# saying what is short, before that. Then it writes:
#
#   results/wrong-start/decide/stats.md     scripts/wrong-start-stats.py decide:
#                                           the tables and the README rule's verdict
#   results/wrong-start/defaults/stats.md   scripts/wrong-start-stats.py defaults
#   results/wrong-start/decide/<start>/report
#                                           one report per kept start over its
#                                           four rows (rows of results/reports.tsv,
#                                           replacing study.sh's one-row reports)
#   results/wrong-start/defaults/<variant>/report   (each variant's)
#   results/wrong-start/figure              the trace figure of the row that
#                                           stats.md names (scripts/wrong-start-figure.sh)
#
# It changes files only; committing them and the README's verdict is the
# author's step.
#   HYPERCTL  as scripts/reports.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/wrong-start-settings.sh
stats() { /usr/bin/python3 scripts/wrong-start-stats.py "$@"; }
decide=results/wrong-start/decide
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
stats decide > "$tmp"
if grep -q '^no verdict yet' "$tmp"; then
  echo "wrong-start-finish: $(grep '^no verdict yet' "$tmp")" >&2
  exit 1
fi
variants=$(cd results/wrong-start/defaults 2>/dev/null && ls -d -- */ | tr -d / || true)
[ -n "$variants" ] || { echo "wrong-start-finish: results/wrong-start/defaults holds no variant's study" >&2; exit 1; }
for variant in $variants; do
  runs=$(find "results/wrong-start/defaults/$variant" -name summary.json 2>/dev/null | wc -l)
  if [ "$runs" != 25 ]; then
    echo "wrong-start-finish: results/wrong-start/defaults/$variant has $runs finished runs of 25" >&2
    exit 1
  fi
done
cp "$tmp" "$decide/stats.md"
stats defaults > "results/wrong-start/defaults/stats.md"
row=$(sed -n "s/^The trace figure's row: //p" "$decide/stats.md")

# The reports: one per start over its rows, and the defaults' study.
tsv=results/reports.tsv
outs=()
awk -F'\t' -v d="$decide/" -v v="results/wrong-start/defaults/" \
  'index($2, d) != 1 && index($2, v) != 1' "$tsv" > "$tmp"
for start in $(kept_starts); do
  rm -rf "$decide/$start"/*/report
  printf '%s\t%s\t%s\n' "$decide/$start" "$decide/$start/report" "--focus hypercontroller" >> "$tmp"
  outs+=("$decide/$start/report")
done
for variant in $variants; do
  d=results/wrong-start/defaults/$variant
  printf '%s\t%s\t%s\n' "$d" "$d/report" "--focus $(jq -r '.controllers[0]' "$d/compare.json")" >> "$tmp"
  outs+=("$d/report")
done
cp "$tmp" "$tsv"
scripts/reports.sh "${outs[@]}"
scripts/wrong-start-figure.sh "$row"
echo "wrong-start-finish: wrote $decide/stats.md, results/wrong-start/defaults/stats.md, ${#outs[@]} reports and the figure of $row" >&2
