#!/usr/bin/env bash
# population-compare.sh: the comparison step of issue 26's study
# (scripts/population-study.sh runs it last; run it alone to compare the
# populations that are finished). Per size N, OUT/compare-<N>/<env>/<row>/seed<S>
# holds copies (CSVs, summary, config) of the best member of each population
# (rows <method>-<N>) and of the best of its N fixed runs (row fixed-best<N>),
# each picked by its own final evaluation; `hyperctl report` on it, with
# fixed-best<N> as the reference, writes OUT/compare-<N>/report: IQM,
# P(> fixed-best<N>) and their 95 % CIs. The runs of population seed S and
# size N are fixed seeds S·N … S·N + N − 1, the seeds its members started
# from.
#
# Both picks are made on the runs' own evaluations, so their scores are
# inflated by the maximum of noisy estimates (issue 36). After the report,
# each picked run whose policy-best is on disk is judged: `hyperctl judge`
# evaluates it on 50 fresh episodes (seeds no training or selection used)
# and writes judge.json into the run folder and its copy, and
# `hyperctl report --score judge` writes OUT/compare-<N>/report-judge, the
# comparison by that score. A picked run without its policy is named, with
# how to retrain it (runs are deterministic: the study's binary, the same
# config, and train.csv must come out equal to the committed one, timing
# columns aside).
#
# frames.tsv in OUT/compare-<N> gives each population's frames (all its
# members' together, from result.json) against its N fixed runs' (their
# summary.json), and the ratio: successive halving's share of best-of-N's
# compute.
#
# RETRAIN=1 does that for the picked fixed runs: each is trained again with
# the study's binary on the study's float kernels (OpenBLAS Haswell, ATen
# avx2; docs/guarantees.md) (resumably, into RETRAIN_DIR, default
# /var/tmp/hyperctl-retrain), compared row by row with the committed run
# (scripts/same-rows.sh), and its policy-best.* copied in only when equal.
# RETRAIN_POPS=1 does it for a picked population member too: its lineage
# alone is trained again (scripts/population-lineage.py: in each
# generation the one member its weights descend from, following the
# population log's exploits and the committed plans; one run's frames, not
# the population's N), with the binary of the study that made it (the
# build.txt beside its pop/ folder), into RETRAIN_DIR (the same command
# continues it after an interruption), and the member's policy-best.* is
# copied in only when its train.csv and eval.csv are the committed ones.
#
# Settings as in population-study.sh (OUT, ENVS, METHODS, SIZES, SEEDS,
# FRAMES, READY, ITERS), and CMP, the comparison's folder name
# (OUT/<CMP>-<N>; default compare), and POPS, where the populations of
# some methods live when not in OUT/pop: "method=folder,...", e.g.
# POPS=pbt=results/population/pop,pb2=results/population/pop puts issue
# 26's PBT and PB2 populations beside a tuning's rows (their fixed runs
# are FIXED's either way). The report needs no training, so it
# runs with hyperctl built from this commit (bin/hyperctl-report-<commit>,
# or $REPORT_BIN), not with the study's binary. For example, PB2 with 8
# members alone:
#   METHODS=pb2 SIZES=8 scripts/population-compare.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"

source scripts/population-settings.sh

if [ -n "${REPORT_BIN:-}" ]; then
  report_bin=$REPORT_BIN
  report_build=${REPORT_BUILD:-unknown}
else
  report_build=$(git rev-parse --short=12 HEAD)
  if [ -n "$(git status --porcelain --untracked-files=no -- '*.go' go.mod go.sum configs)" ]; then
    report_build="$report_build-dirty"
  fi
  report_bin=bin/hyperctl-report-$report_build
  if [ ! -x "$report_bin" ]; then
    mkdir -p bin
    go build -o "$report_bin" ./cmd/hyperctl
  fi
fi

need() { # a file the comparison reads, or a clear refusal
  [ -f "$1" ] || { echo "population-compare: $1: missing; $2 is not finished (run scripts/population-study.sh)" >&2; exit 1; }
}
final_eval() { jq -r '.final_eval_return // empty' "$1/summary.json"; }
take() { # copy the files report reads from run folder $1 into $2
  rm -rf "$2"
  mkdir -p "$2"
  cp "$1/train.csv" "$1/eval.csv" "$1/summary.json" "$1/config.toml" "$2/"
}
# retrain RUN: a picked fixed run without its policy, trained again with the
# study's binary into $RETRAIN_DIR (resumed there after an interruption);
# only when its train.csv and eval.csv are the committed ones (same-rows.sh:
# timing columns aside) are its policy-best.* copied into RUN.
source scripts/same-rows.sh
RETRAIN_DIR=${RETRAIN_DIR:-/var/tmp/hyperctl-retrain}
retrain() {
  local run=$1 new="$RETRAIN_DIR/$1"
  [ -x "$study_bin" ] || { echo "population-compare: $study_bin: missing; build it from commit $(cat "$OUT/build.txt") (scripts/pinned-binary.sh)" >&2; return 1; }
  if [ ! -f "$new/summary.json" ]; then
    local resume=()
    [ -f "$new/config.toml" ] && resume=(--resume)
    mkdir -p "$(dirname "$new")"
    # The kernels of the study's machine (docs/guarantees.md): its binary
    # predates the pin, so the retrain sets them itself.
    OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell} ATEN_CPU_CAPABILITY=${ATEN_CPU_CAPABILITY:-avx2} \
      nice -n 19 "$study_bin" --log-format json train --config "$run/config.toml" --out "$new" "${resume[@]}" >/dev/null 2>>"$new.log" || {
      echo "population-compare: retraining $run into $new failed; see $new.log" >&2; return 1; }
  fi
  local t e ok=1
  t=$(same_rows "$run/train.csv" "$new/train.csv") || ok=
  e=$(same_rows "$run/eval.csv" "$new/eval.csv") || ok=
  if [ -n "$ok" ]; then
    cp "$new/policy-best.json" "$new/policy-best.safetensors" "$run/"
    echo "population-compare: retrained $run: train.csv $t and eval.csv $e rows identical (timing aside); its policy-best is in place"
  else
    echo "population-compare: retrained $run into $new, but it differs from the committed run (train.csv $t, eval.csv $e rows identical); not used" >&2
    return 1
  fi
}
# retrain_pop POP MEMBER ENV METHOD SIZE SEED: the picked member MEMBER of
# the population POP, which has no policy, trained again along its lineage
# (see RETRAIN_POPS).
retrain_pop() {
  local pop=$1 member=$2 m=$4 new="$RETRAIN_DIR/lineage/$1" bin t e ok=1
  bin=$(pop_bin "$m")
  [ -x "$bin" ] || { echo "population-compare: $bin: missing; build it with scripts/pinned-binary.sh (BUILD=its commit)" >&2; return 1; }
  mkdir -p "$(dirname "$new")"
  scripts/population-lineage.py "$pop" "$member" "$new" "$bin" 2>>"$new.log" || {
    echo "population-compare: retraining $pop's $member into $new failed; see $new.log" >&2; return 1; }
  t=$(same_rows "$pop/$member/train.csv" "$new/$member/train.csv") || ok=
  e=$(same_rows "$pop/$member/eval.csv" "$new/$member/eval.csv") || ok=
  [ -n "$ok" ] || { echo "population-compare: retrained $pop's $member into $new, but it differs from the committed one (train.csv $t, eval.csv $e rows identical); not used" >&2; return 1; }
  cp "$new/$member/policy-best.json" "$new/$member/policy-best.safetensors" "$pop/$member/"
  echo "population-compare: retrained $pop's $member along its lineage: train.csv $t and eval.csv $e rows identical (timing aside); its policy-best is in place"
}
# pop_bin METHOD: the binary of the study that trained METHOD's populations.
pop_bin() { echo "bin/hyperctl-study-$(cat "$(dirname "$(pop_root "$1")")/build.txt" 2>/dev/null || echo COMMIT)"; }
# pop_root METHOD: the folder holding METHOD's populations (POPS, else OUT/pop).
pop_root() {
  local kv
  for kv in ${POPS:+${POPS//,/ }}; do
    [ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return; }
  done
  echo "$OUT/pop"
}
study_bin="bin/hyperctl-study-$(cat "$OUT/build.txt" 2>/dev/null || echo COMMIT)" # the binary that trained the study (scripts/study-binary.sh)
for n in ${SIZES//,/ }; do
  cmp="$OUT/${CMP:-compare}-$n"
  new="$cmp.new" # assembled beside, so a refusal leaves the last comparison whole
  rm -rf "$new"
  picked=() # per picked run, tab-separated: its folder, its copy below $cmp, its population's words for retrain_pop (- for a fixed run), how to retrain it
  mkdir -p "$new"
  printf 'env\trow\tseed\tframes_used\tframes_fixed\tratio\n' >"$new/frames.tsv"
  for env in ${ENVS//,/ }; do
    for s in $(seq "$first" "$last"); do
      for m in ${METHODS//,/ }; do
        pop="$(pop_root "$m")/$env/$m-$n/seed$s"
        need "$pop/result.json" "population $pop"
        best=$(jq -r '.best' "$pop/result.json")
        member=$(jq -r ".members[$best].dir" "$pop/result.json")
        take "$pop/$member" "$new/$env/$m-$n/seed$s"
        used=$(jq '[.members[].frames] | add' "$pop/result.json")
        fixed=0
        for k in $(seq 0 $(( n - 1 ))); do
          fixed=$(( fixed + $(jq '.frames' "$FIXED/$env/fixed/seed$(( s * n + k ))/summary.json" 2>/dev/null || echo 0) ))
        done
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$env" "$m-$n" "$s" "$used" "$fixed" \
          "$(jq -n --argjson u "$used" --argjson f "$fixed" 'if $f > 0 then ($u / $f * 1000 | round / 1000) else null end')" >>"$new/frames.tsv"
        picked+=("$pop/$member"$'\t'"$env/$m-$n/seed$s"$'\t'"$pop $member $env $m $n $s"$'\t'"with the study's binary $(pop_bin "$m") (scripts/pinned-binary.sh), run scripts/population-lineage.py $pop $member NEW $(pop_bin "$m"), check that same_rows finds NEW/$member's train.csv and eval.csv rows identical to the committed ones (scripts/same-rows.sh), then copy NEW/$member/policy-best.* into $pop/$member (RETRAIN_POPS=1 does all this)")
      done
      bestdir= bestv=
      for k in $(seq 0 $(( n - 1 ))); do
        d="$FIXED/$env/fixed/seed$(( s * n + k ))"
        need "$d/summary.json" "fixed run $d"
        v=$(final_eval "$d")
        if [ -n "$v" ] && { [ -z "$bestv" ] || jq -en "$v > $bestv" >/dev/null; }; then
          bestdir=$d bestv=$v
        fi
      done
      take "$bestdir" "$new/$env/fixed-best$n/seed$s"
      picked+=("$bestdir"$'\t'"$env/fixed-best$n/seed$s"$'\t'-$'\t'"with the study's binary $study_bin (git checkout $(cat "$OUT/build.txt" 2>/dev/null) and go build -o $study_bin ./cmd/hyperctl), run $study_bin train --config $bestdir/config.toml --out NEW, check that same_rows $bestdir/train.csv NEW/train.csv (scripts/same-rows.sh) finds every row identical, then copy NEW/policy-best.* into $bestdir (RETRAIN=1 does all this)")
    done
  done
  rows=$(echo "$METHODS" | sed "s/\([^,]*\)/\1-$n/g")
  jq -n --arg envs "$ENVS" --arg rows "$rows,fixed-best$n" --argjson first "$first" --argjson last "$last" --argjson frames "$FRAMES" --argjson iters "$ITERS" \
    --arg cmd "scripts/population-study.sh (OUT=$OUT ENVS=$ENVS SEEDS=$SEEDS FRAMES=$FRAMES READY=$READY; training binary of commit $(cat "$OUT/build.txt")), then OUT=$OUT ENVS=$ENVS METHODS=$METHODS${POPS:+ POPS=$POPS} SIZES=$n SEEDS=$SEEDS scripts/population-compare.sh (report of commit $report_build)" \
    '{envs: ($envs | split(",")), controllers: ($rows | split(",")), seeds: [range($first; $last + 1)], iterations: $iters, frames: $frames, command: $cmd}' \
    >"$new/compare.json"
  rm -rf "$cmp"
  mv "$new" "$cmp"
  focus=${METHODS%%,*}-$n
  nice -n 19 "$report_bin" report "$cmp" --reference "fixed-best$n" --focus "$focus" --out "$cmp/report"
  echo "population-compare: size $n: $cmp/report/report.md"

  # The picked policies on fresh episodes (issue 36).
  judged=0
  for p in "${picked[@]}"; do
    IFS=$'\t' read -r src rel popargs how <<<"$p"
    if [ -f "$src/policy-best.json" ] && [ -f "$src/policy-best.safetensors" ]; then
      nice -n 19 "$report_bin" judge "$src"
      cp "$src/judge.json" "$cmp/$rel/"
      judged=$(( judged + 1 ))
    elif { [ -n "${RETRAIN:-}" ] && [[ $src == "$FIXED/"* ]] && retrain "$src"; } ||
      # shellcheck disable=SC2086 # the population's six words
      { [ -n "${RETRAIN_POPS:-}" ] && [ "$popargs" != - ] && retrain_pop $popargs; }; then
      nice -n 19 "$report_bin" judge "$src"
      cp "$src/judge.json" "$cmp/$rel/"
      judged=$(( judged + 1 ))
    else
      echo "population-compare: $src (picked for $cmp/$rel) has no policy-best on disk, so it is not judged; $how, and run this script again" >&2
    fi
  done
  if [ "$judged" -gt 0 ]; then
    nice -n 19 "$report_bin" report "$cmp" --score judge --reference "fixed-best$n" --focus "$focus" --out "$cmp/report-judge"
    echo "population-compare: size $n: $judged of ${#picked[@]} picked runs judged on fresh episodes: $cmp/report-judge/report.md"
  else
    echo "population-compare: size $n: none of the ${#picked[@]} picked runs has its policy-best on disk; no fresh-episode report" >&2
  fi
done
