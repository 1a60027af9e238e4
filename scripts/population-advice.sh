#!/usr/bin/env bash
# population-advice.sh: the numbers behind the README's advice table of
# issue 36 (deliver 4: for a budget of 1 run, about half of N runs, and N
# runs, which method to use and what it gained here), from a finished,
# judged comparison of scripts/population-compare.sh (OUT/compare-N with
# every pick's judge.json). It adds two rows of plain `fixed` runs from
# the same study and seeds:
#
#   fixed-1      one run: for population seed S, fixed seed S·N, the first
#                of the N seeds best-of-N picks from (chosen by its number,
#                never by its score)
#   fixed-best4  best-of-4 at half of best-of-8's frames: for population
#                seed S, the best of fixed seeds S·N … S·N + 3 by its final
#                evaluation, as best-of-N picks
#
# and judges both on 50 fresh episodes (`hyperctl judge`, as every other
# pick), into OUT/advice-N, beside copies of compare-N's rows. Then:
#
#   OUT/advice-N/report       `hyperctl report --score judge --reference
#                             fixed-1`: every row's aggregate IQM with 1 =
#                             one run's, and P(> one run)
#   OUT/advice-N/report-half  the same against fixed-best4: the budget of
#                             about half of N runs (successive halving against
#                             best-of-4)
#   OUT/advice-N/frames.tsv   compare-N's frames, with one run's,
#                             best-of-4's and best-of-N's
#
# Which method each budget gets is stated here before the deciding study
# ended (2026-11-27): 1 run, `fixed` (issue 25), or the controller issue
# 37's rule names when the hyperparameters are guessed; half of N runs,
# successive halving if its P over best-of-4 has a 95 % CI lower bound
# above 0.5, best-of-4 if its upper bound is below 0.5, and otherwise
# whichever trains fewer frames; N runs, a method that beats best-of-N by
# the README rule (scripts/population-verdict.py), else best-of-N.
#
# It refuses until compare-N has every pick judged. Resumable: a run judged
# already is not evaluated again. Settings: OUT (default
# results/population-decide), SIZE (N, default 8), ENVS, SEEDS and FIXED
# as in scripts/population-settings.sh, HYPERCTL (the binary that judges
# and reports; default the one scripts/population-compare.sh builds for
# this commit).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
export OUT=${OUT:-results/population-decide} SEEDS=${SEEDS:-5-9}
source scripts/population-settings.sh
n=${SIZE:-8}
cmp=$OUT/compare-$n
adv=$OUT/advice-$n
bin=${HYPERCTL:-bin/hyperctl-report-$(git rev-parse --short=12 HEAD)}
if [ ! -x "$bin" ]; then
  mkdir -p bin
  go build -o "$bin" ./cmd/hyperctl
fi
[ -f "$cmp/compare.json" ] || { echo "population-advice: $cmp/compare.json: missing; run scripts/population-compare.sh first" >&2; exit 1; }
rows=$(jq -r '.controllers | join(" ")' "$cmp/compare.json")
for env in ${ENVS//,/ }; do
  for row in $rows; do
    for s in $(seq "$first" "$last"); do
      [ -f "$cmp/$env/$row/seed$s/judge.json" ] || {
        echo "population-advice: $cmp/$env/$row/seed$s has no judge.json; finish scripts/population-compare.sh first" >&2
        exit 1
      }
    done
  done
done

# judged RUN COPY: judge RUN (once) and copy the files report reads to COPY.
judged() {
  [ -f "$1/summary.json" ] || { echo "population-advice: $1/summary.json: missing; the fixed runs of $OUT are not finished" >&2; exit 1; }
  nice -n 19 "$bin" judge "$1" >/dev/null
  mkdir -p "$2"
  cp "$1/train.csv" "$1/eval.csv" "$1/summary.json" "$1/config.toml" "$1/judge.json" "$2/"
}
new=$adv.new # assembled beside, so a refusal leaves the last one whole
rm -rf "$new"
mkdir -p "$new"
cp -r "$cmp"/*/ "$new/"
rm -rf "$new/report" "$new/report-judge"
{
  cat "$cmp/frames.tsv"
  for env in ${ENVS//,/ }; do
    for s in $(seq "$first" "$last"); do
      judged "$FIXED/$env/fixed/seed$(( s * n ))" "$new/$env/fixed-1/seed$s"
      best= bestv=
      for k in 0 1 2 3; do
        d=$FIXED/$env/fixed/seed$(( s * n + k ))
        v=$(jq -r '.final_eval_return // empty' "$d/summary.json")
        if [ -n "$v" ] && { [ -z "$bestv" ] || jq -en "$v > $bestv" >/dev/null; }; then
          best=$d bestv=$v
        fi
      done
      judged "$best" "$new/$env/fixed-best4/seed$s"
      f1=$(jq '.frames' "$new/$env/fixed-1/seed$s/summary.json")
      f4=0 f8=0
      for k in $(seq 0 $(( n - 1 ))); do
        f=$(jq '.frames' "$FIXED/$env/fixed/seed$(( s * n + k ))/summary.json")
        f8=$(( f8 + f ))
        [ "$k" -lt 4 ] && f4=$(( f4 + f ))
      done
      for r in "fixed-1 $f1" "fixed-best4 $f4" "fixed-best$n $f8"; do
        set -- $r
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$env" "$1" "$s" "$2" "$f8" "$(jq -n "$2 / $f8 * 1000 | round / 1000")"
      done
    done
  done
} >"$new/frames.tsv.tmp"
mv "$new/frames.tsv.tmp" "$new/frames.tsv"
jq --arg cmd "OUT=$OUT SIZE=$n scripts/population-advice.sh (judge and report of $bin), over $(jq -r .command "$cmp/compare.json")" \
  '.controllers += ["fixed-1", "fixed-best4"] | .command = $cmd' "$cmp/compare.json" >"$new/compare.json"
rm -rf "$adv"
mv "$new" "$adv"
nice -n 19 "$bin" report "$adv" --score judge --reference fixed-1 --out "$adv/report"
nice -n 19 "$bin" report "$adv" --score judge --reference fixed-best4 --out "$adv/report-half"
echo "population-advice: $adv/report/report.md (against one run) and $adv/report-half/report.md (against best-of-4)"
