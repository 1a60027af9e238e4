#!/usr/bin/env bash
# population-finish.sh: issue 36's write-up steps once its tuning
# (scripts/population-tune.sh) and its deciding study
# (scripts/population-decide.sh, with the chosen rows) are whole. It
# refuses, saying what is short, before that. Then it writes:
#
#   results/population-tune/choice.md      scripts/population-choose.py:
#                                          the rule's two tuned rows
#   results/population-decide/compare-8    scripts/population-compare.sh over
#                                          every row, each pick judged
#   results/population-decide/verdict.md   scripts/population-verdict.py:
#                                          the README rule's verdict
#   results/population-decide/advice-8     scripts/population-advice.sh:
#                                          the advice table's numbers
#   results/reports.tsv                    rows for the tuning's two
#                                          comparisons, the deciding one and
#                                          the advice's two reports (as the
#                                          scripts above ran them), which
#                                          scripts/reports.sh then rewrites
#                                          with this checkout's hyperctl
#
# It changes files only; committing them, and the README's verdict and
# advice table, is the author's step.
#   HYPERCTL  the binary that reports (default: built from this checkout
#             into bin/hyperctl, as scripts/reports.sh builds it)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
if [ -z "${HYPERCTL:-}" ]; then
  go build -o bin/hyperctl ./cmd/hyperctl
  export HYPERCTL=bin/hyperctl
fi
tune=results/population-tune decide=results/population-decide
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

if ! scripts/population-choose.py > "$tmp"; then
  echo "population-finish: the tuning has not chosen yet (scripts/population-choose.py):" >&2
  cat "$tmp" >&2
  exit 1
fi
chosen=$(sed -n 's/^CHOSEN=//p' "$tmp")
cp "$tmp" "$tune/choice.md"
# The deciding comparison over all its rows (a stream that ran only some,
# ROWS=chosen, compared only those); it refuses while a population or a
# fixed run is unfinished. MF-PBT's populations are in their own study
# folder, trained by their own binary (scripts/population-decide.sh).
OUT=$decide METHODS=random,mfpbt,$chosen POPS=mfpbt=$decide/mfpbt/pop SIZES=8 SEEDS=5-9 \
  scripts/population-compare.sh > /dev/null

scripts/population-verdict.py "$decide" > "$tmp"
if grep -q '^No verdict yet' "$tmp"; then
  echo "population-finish: $(grep '^No verdict yet' "$tmp")" >&2
  exit 1
fi
cp "$tmp" "$decide/verdict.md"
scripts/population-advice.sh

# The reports' rows, each as the script that wrote it ran report (the
# comparisons: scripts/population-compare.sh; the advice:
# scripts/population-advice.sh).
rows() { # CMP FOCUS: a comparison's report and report-judge
  printf '%s\t%s\t%s\n' "$1" "$1/report" "--reference fixed-best8 --focus $2" \
    "$1" "$1/report-judge" "--score judge --reference fixed-best8 --focus $2"
}
tsv=results/reports.tsv
outs=()
{
  awk -F'\t' -v t="$tune/compare-halving-8/" -v a="$tune/compare-antigreedy-8/" -v d="$decide/" \
    'index($2, t) != 1 && index($2, a) != 1 && index($2, d) != 1' "$tsv"
  rows "$tune/compare-halving-8" halving3-same-8
  rows "$tune/compare-antigreedy-8" pbt-late-8
  rows "$decide/compare-8" random-8
  printf '%s\t%s\t%s\n' "$decide/advice-8" "$decide/advice-8/report" "--score judge --reference fixed-1" \
    "$decide/advice-8" "$decide/advice-8/report-half" "--score judge --reference fixed-best4"
} > "$tmp"
cp "$tmp" "$tsv"
for c in "$tune/compare-halving-8" "$tune/compare-antigreedy-8" "$decide/compare-8"; do
  outs+=("$c/report" "$c/report-judge")
done
outs+=("$decide/advice-8/report" "$decide/advice-8/report-half")
scripts/reports.sh "${outs[@]}"
echo "population-finish: wrote $tune/choice.md, $decide/verdict.md, $decide/advice-8 and ${#outs[@]} reports" >&2
