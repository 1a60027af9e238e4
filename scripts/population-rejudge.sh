#!/usr/bin/env bash
# population-rejudge.sh: the population study's picks judged on the policy
# they were selected on (results/population-decide/README.md, "Re-judging
# the picks on the selected policy"). Every pick (best-of-8 `fixed`, each
# population's best member, and the advice table's one run and best-of-4)
# was ranked by its final weights' evaluation, but `hyperctl judge` then
# scored policy-best, and policy-final was not committed. So each picked
# run is
#
#   1. trained again by the binary that trained it (build.txt of its study
#      folder; built by scripts/pinned-binary.sh): a fixed run from its own
#      config.toml (hyperctl train), a population member along its lineage
#      (scripts/population-lineage.py: one run's frames), into RETRAIN_DIR;
#   2. checked to be the same run: scripts/same-run.py committed against
#      retrained (train.csv, eval.csv, summary.json and policy-best, timing
#      aside) must say identical, and the judging binary, judging the
#      policy the committed judge.json judged (policy-best here), must give
#      its 50 returns: the judge's episodes are the ones before;
#   3. judged by the judging binary (JUDGE_BUILD) on its policy-final: 50
#      fresh episodes, the same seeds as before (hyperctl judge);
#   4. copied into OUT/<its path in STUDY> (config.toml, train.csv,
#      eval.csv, summary.json, train.log, judge.json, policy-final.*, and
#      rejudge.txt with the checks), and with COMMIT=1 committed there,
#      one commit per run (policy-final added with git add -f: results
#      otherwise keep only policy-best).
#
# A run that fails a check is neither judged nor committed; the script
# stops with the difference. The picks are OUT/picks.tsv (written by
# scripts/population-picks.py on the first run, then checked against it:
# committed with the plan). Then, once every pick is judged, the finish
# phase writes, beside the old ones (which stay as they are):
#
#   STUDY/compare-8-final   compare-8's rows with every pick's policy-final
#                           judge.json, plus row mfpbt-own-8 when MF-PBT's
#                           re-run (scripts/mfpbt-own.sh, MFPBT_OWN) has
#                           all its populations judged; report-judge/ in it
#   STUDY/verdict-final.md  scripts/population-verdict.py --policy
#                           policy-final on it: the README rule's verdict
#   STUDY/advice-8-final    the advice table's numbers (advice-8's rows and
#                           fixed-1, fixed-best4, re-judged): report/
#                           (against one run), report-half/ (against
#                           best-of-4)
#
# Resumable (a judged pick is skipped, a retrain continues where it
# stopped) and niced (19). The finish phase runs again whenever called,
# and refuses, naming what is short, until every pick is judged.
#
# Settings (environment variables):
#   STUDY       the study                         results/population-decide
#   OUT         retrained, judged picks           STUDY/final
#   MFPBT_OWN   MF-PBT's re-run                   STUDY/mfpbt-own
#   PHASES      retrain, finish, in order         retrain finish
#   ROWS        the rows whose picks retrain, in this order (a run picked
#               by several rows trains once)      fixed-best8, the population
#               rows (random-8 pbt-late-8 halving3-same-8, then mfpbt-8),
#               fixed-1, fixed-best4
#   JOBS        picks retrained at once           2
#   RETRAIN_DIR where runs train again            /var/tmp/hyperctl-rejudge
#   JUDGE_BUILD the judging binary's commit       OUT/build.txt (the first
#               run writes it; the same binary judges every pick)
#   RUNS        judged runs a row needs for the verdict  3 x 5 = 15
#   COMMIT      1: commit each pick as it is judged, and the finish's files
#
# The command (the full re-judge: 93 runs, 93,169,536 frames):
#   COMMIT=1 scripts/population-rejudge.sh
#
# A tiny dry run (not the study: a tiny study of its own in /tmp, made by
# population-study.sh and population-advice.sh, judged on policy-best and
# its policy-final and checkpoints deleted, as the study was committed;
# 24 runs of 24,576 frames, READY at least the largest batch, 6,000; with
# MFPBT_OWN, mfpbt-own.sh's dry run joins as a row):
#   D=/tmp/rejudge-dry B=$(git rev-parse --short=12 HEAD)
#   OUT=$D/study ENVS=pusher METHODS=pbt,random SIZES=8 SEEDS=5-5 FRAMES=24576 READY=6144 \
#     BUILD=$B HYPERCTL=$PWD/bin/hyperctl-study-$B REPORT_BIN=$PWD/bin/hyperctl-study-$B scripts/population-study.sh
#   OUT=$D/study ENVS=pusher SEEDS=5-5 HYPERCTL=$PWD/bin/hyperctl-study-$B scripts/population-advice.sh
#   find $D/study/fixed $D/study/pop -name judge.json -printf '%h\0' | xargs -0 bin/hyperctl-study-$B judge --policy best
#   find $D/study \( -name 'policy-final.*' -o -name checkpoint \) -prune -exec rm -rf {} +
#   STUDY=$D/study RETRAIN_DIR=$D/retrain JUDGE_BUILD=$B RUNS=1 MFPBT_OWN=/tmp/mfpbt-own-dry \
#     scripts/population-rejudge.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"

export STUDY=${STUDY:-results/population-decide}
STUDY=${STUDY%/}
export OUT=${OUT:-$STUDY/final}
export MFPBT_OWN=${MFPBT_OWN:-$STUDY/mfpbt-own}
export RETRAIN_DIR=${RETRAIN_DIR:-/var/tmp/hyperctl-rejudge}
export COMMIT=${COMMIT:-0}
export RUNS=${RUNS:-15}
JOBS=${JOBS:-2}
PHASES=${PHASES:-retrain finish}
SIZE=8
# The float kernels the study's binaries ran on (docs/guarantees.md); the
# binaries pin them themselves, these only repeat it.
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell} ATEN_CPU_CAPABILITY=${ATEN_CPU_CAPABILITY:-avx2}

if [ -z "${JUDGE_BUILD:-}" ]; then
  JUDGE_BUILD=$(cat "$OUT/build.txt" 2>/dev/null) || { echo "population-rejudge: set JUDGE_BUILD (the commit of the judging binary) for the first run" >&2; exit 2; }
fi
export JUDGE_BUILD
export JUDGE_BIN=$PWD/bin/hyperctl-study-$JUDGE_BUILD

# commit_paths MESSAGE PATH...: with COMMIT=1, commit PATHs alone (forced:
# a pick's policy-final is ignored elsewhere in results); a lock keeps
# parallel jobs' commits, and scripts/mfpbt-own.sh's, apart.
commit_paths() {
  [ "$COMMIT" = 1 ] || return 0
  local msg=$1
  shift
  (
    flock 9
    git add -f -- "$@"
    git commit -q -m "$msg" -- "$@"
  ) 9>"$(git rev-parse --git-common-dir)/rerun-commit.lock"
}

hj() { nice -n 19 "$JUDGE_BIN" --log-format json "$@"; }

# pick_line RUN: RUN's line of OUT/picks.tsv (its first row's).
pick_line() { awk -F'\t' -v r="$1" 'NR > 1 && $4 == r { print; exit }' "$OUT/picks.tsv"; }

# same_returns A B: the judge.json files A and B hold the same episodes' returns.
same_returns() {
  jq -en --slurpfile a "$1" --slurpfile b "$2" \
    '$a[0].seeds == $b[0].seeds and $a[0].returns == $b[0].returns' >/dev/null
}

# one_pick RUN: retrain, check, judge and commit the picked run RUN.
one_pick() {
  local run=$1 row env seed pop member build frames rel dst new log bin check best
  IFS=$'\t' read -r row env seed _ pop member build frames <<<"$(pick_line "$run")"
  [ -n "$row" ] || { echo "population-rejudge: $run is not in $OUT/picks.tsv" >&2; return 1; }
  rel=${run#"$STUDY"/}
  dst=$OUT/$rel
  [ -f "$dst/judge.json" ] && return 0
  bin=$PWD/bin/hyperctl-study-$build
  [ -x "$bin" ] || { echo "population-rejudge: $bin: missing (the retrain phase builds it first)" >&2; return 1; }
  if [ "$pop" = - ]; then
    new=$RETRAIN_DIR/$rel
    log=$new.log
    if [ ! -f "$new/summary.json" ]; then
      local resume=()
      [ -f "$new/config.toml" ] && resume=(--resume)
      mkdir -p "$(dirname "$new")"
      nice -n 19 "$bin" --log-format json train --config "$run/config.toml" --out "$new" "${resume[@]}" >>"$log" 2>&1 ||
        { echo "population-rejudge: retraining $run into $new failed; see $log" >&2; return 1; }
    fi
  else
    local newpop=$RETRAIN_DIR/${pop#"$STUDY"/}
    mkdir -p "$(dirname "$newpop")"
    scripts/population-lineage.py "$pop" "$member" "$newpop" "$bin" >>"$newpop.log" 2>&1 ||
      { echo "population-rejudge: retraining $pop's $member into $newpop failed; see $newpop.log" >&2; return 1; }
    new=$newpop/$member
    log=$new/train.log
  fi
  check=$(/usr/bin/python3 scripts/same-run.py "$run" "$new") ||
    { echo "population-rejudge: $new is not the committed run $run, so it is not judged: $check" >&2; return 1; }
  if [ -f "$run/judge.json" ]; then
    # The committed judgement's policy (policy-best in this study), judged
    # again by the judging binary: the same returns, or the episodes differ.
    local was
    was=$(jq -r .policy "$run/judge.json")
    hj judge --policy "${was#policy-}" "$new" >>"$log" 2>&1 || { echo "population-rejudge: judging $new's $was failed; see $log" >&2; return 1; }
    same_returns "$run/judge.json" "$new/judge.json" ||
      { echo "population-rejudge: $JUDGE_BIN judges $new's $was (the committed one, byte for byte) otherwise than $run/judge.json: not the same episodes; not judged" >&2; return 1; }
    best="judge --policy ${was#policy-} (binary $JUDGE_BUILD) of the retrained $was: the $(jq '.returns | length' "$run/judge.json") returns of $run/judge.json, mean $(jq '.mean' "$run/judge.json")"
  else
    best="no committed judge.json to compare the judge's episodes with"
  fi
  hj judge "$new" >>"$log" 2>&1 || { echo "population-rejudge: judging $new failed; see $log" >&2; return 1; }
  [ "$(jq -r .policy "$new/judge.json")" = policy-final ] || { echo "population-rejudge: $new/judge.json judged $(jq -r .policy "$new/judge.json"), not policy-final" >&2; return 1; }
  rm -rf "$dst"
  mkdir -p "$dst"
  cp "$new/config.toml" "$new/train.csv" "$new/eval.csv" "$new/summary.json" "$new/judge.json" \
    "$new/policy-final.json" "$new/policy-final.safetensors" "$dst/"
  cp "$log" "$dst/train.log"
  {
    echo "pick: $row $env seed $seed (and any other row in picks.tsv naming this run): $run"
    echo "retrained by binary $build: $([ "$pop" = - ] && echo "hyperctl train --config $run/config.toml" || echo "scripts/population-lineage.py $pop $member NEW (its lineage)"), $frames frames"
    echo "same run: scripts/same-run.py $run NEW: $check"
    echo "judge's episodes: $best"
    echo "judged: hyperctl judge (binary $JUDGE_BUILD), policy-final on $(jq '.episodes' "$dst/judge.json") fresh episodes: mean $(jq '.mean' "$dst/judge.json")"
  } >"$dst/rejudge.txt"
  commit_paths "population re-judge: $rel retrained (the same run) and its policy-final judged: $(jq '.mean * 100 | round / 100' "$dst/judge.json") (binaries $build, $JUDGE_BUILD)" "$dst"
  echo "population-rejudge: $dst judged: policy-final $(jq '.mean' "$dst/judge.json"), policy-best $(jq '.mean' "$run/judge.json" 2>/dev/null || echo -) ($(date -u +%FT%TZ))"
}

case ${1:-} in
  one-pick) shift; one_pick "$@"; exit ;;
esac

# The binary at commit B into bin/hyperctl-study-B (scripts/pinned-binary.sh),
# MF-PBT's old commit made first when the clone lacks it.
build_bin() {
  local BUILD=$1 HYPERCTL=$PWD/bin/hyperctl-study-$1
  if ! git rev-parse --verify --quiet "$BUILD^{commit}" >/dev/null; then
    source scripts/mfpbt-build.sh
    local made
    made=$(mfpbt_build_commit) || exit 1
    [ "${made:0:${#BUILD}}" = "$BUILD" ] || { echo "population-rejudge: commit $BUILD is not in this clone (scripts/mfpbt-build.sh makes $made)" >&2; exit 1; }
  fi
  source scripts/pinned-binary.sh
}

# finish: the comparison, verdict and advice of the re-judged picks.
finish() {
  local cmp=$STUDY/compare-$SIZE adv=$STUDY/advice-$SIZE fin=$STUDY/compare-$SIZE-final advfin=$STUDY/advice-$SIZE-final
  local short=() row env seed run rel envs seeds
  while IFS=$'\t' read -r row env seed run _; do
    [ -f "$OUT/${run#"$STUDY"/}/judge.json" ] || short+=("$row $env seed $seed")
  done < <(tail -n +2 "$OUT/picks.tsv")
  if [ ${#short[@]} -gt 0 ]; then
    echo "population-rejudge: finish: ${#short[@]} picks not judged yet (first: ${short[0]}); run the retrain phase" >&2
    return 1
  fi
  envs=$(jq -r '.envs | join(" ")' "$cmp/compare.json")
  seeds=$(jq -r '.seeds | map(tostring) | join(" ")' "$cmp/compare.json")
  # MF-PBT's re-run joins as its own row once all its populations are judged.
  local own=1 d
  for env in $envs; do
    for seed in $seeds; do
      d=$MFPBT_OWN/pop/$env/mfpbt-$SIZE/seed$seed
      if [ -f "$d/result.json" ]; then
        d=$d/$(jq -r '.members[.best].dir' "$d/result.json")
        [ "$(jq -r .policy "$d/judge.json" 2>/dev/null)" = policy-final ] || own=
      else
        own=
      fi
    done
  done
  local new=$fin.new
  rm -rf "$new"
  mkdir -p "$new"
  while IFS=$'\t' read -r row env seed run _; do
    case $row in fixed-1 | fixed-best4) continue ;; esac
    rel=$env/$row/seed$seed
    mkdir -p "$new/$rel"
    cp "$cmp/$rel/train.csv" "$cmp/$rel/eval.csv" "$cmp/$rel/summary.json" "$cmp/$rel/config.toml" "$new/$rel/"
    cp "$OUT/${run#"$STUDY"/}/judge.json" "$new/$rel/"
  done < <(tail -n +2 "$OUT/picks.tsv")
  cp "$cmp/frames.tsv" "$new/frames.tsv"
  local rows_add=() ownframes=
  if [ -n "$own" ]; then
    rows_add=("mfpbt-own-$SIZE")
    for env in $envs; do
      for seed in $seeds; do
        local pop=$MFPBT_OWN/pop/$env/mfpbt-$SIZE/seed$seed member used fixed
        member=$(jq -r '.members[.best].dir' "$pop/result.json")
        rel=$env/mfpbt-own-$SIZE/seed$seed
        mkdir -p "$new/$rel"
        cp "$pop/$member/train.csv" "$pop/$member/eval.csv" "$pop/$member/summary.json" "$pop/$member/config.toml" "$pop/$member/judge.json" "$new/$rel/"
        used=$(jq '[.members[].frames] | add' "$pop/result.json")
        fixed=$(awk -F'\t' -v e="$env" -v s="$seed" '$1 == e && $3 == s { print $5; exit }' "$cmp/frames.tsv")
        ownframes+=$(printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$env" "mfpbt-own-$SIZE" "$seed" "$used" "$fixed" "$(jq -n "$used / $fixed * 1000 | round / 1000")")$'\n'
      done
    done
    printf '%s' "$ownframes" >>"$new/frames.tsv"
    echo "population-rejudge: MF-PBT's re-run ($MFPBT_OWN) joins as row mfpbt-own-$SIZE"
  else
    echo "population-rejudge: MF-PBT's re-run ($MFPBT_OWN) is not finished and judged; compare-$SIZE-final is without it (run this phase again after it)"
  fi
  local extra
  extra=$(printf '%s\n' "${rows_add[@]}" | jq -R . | jq -s 'map(select(length > 0))')
  jq --argjson extra "$extra" --arg cmd "scripts/population-rejudge.sh (STUDY=$STUDY OUT=$OUT MFPBT_OWN=$MFPBT_OWN; judging binary $JUDGE_BUILD): compare-$SIZE's picks, each retrained and judged on its policy-final; over $(jq -r .command "$cmp/compare.json")" \
    '(.controllers | index("fixed-best8")) as $i | .controllers = (.controllers[:$i] + $extra + .controllers[$i:]) | .command = $cmd' "$cmp/compare.json" >"$new/compare.json"
  rm -rf "$fin"
  mv "$new" "$fin"
  local focus
  focus=$(jq -r '.controllers[0]' "$fin/compare.json")
  hj --log-level warn report "$fin" --score judge --reference "fixed-best$SIZE" --focus "$focus" --out "$fin/report-judge" >/dev/null
  HYPERCTL=$JUDGE_BIN nice -n 19 scripts/population-verdict.py --policy policy-final --runs "$RUNS" "$STUDY" "compare-$SIZE-final" >"$STUDY/verdict-final.md.tmp"
  mv "$STUDY/verdict-final.md.tmp" "$STUDY/verdict-final.md"
  local finish_paths=("$fin" "$STUDY/verdict-final.md")
  if [ -d "$adv" ]; then
    new=$advfin.new
    rm -rf "$new"
    mkdir -p "$new"
    cp -r "$fin"/*/ "$new/"
    rm -rf "$new/report-judge"
    while IFS=$'\t' read -r row env seed run _; do
      case $row in fixed-1 | fixed-best4) ;; *) continue ;; esac
      rel=$env/$row/seed$seed
      mkdir -p "$new/$rel"
      cp "$adv/$rel/train.csv" "$adv/$rel/eval.csv" "$adv/$rel/summary.json" "$adv/$rel/config.toml" "$new/$rel/"
      cp "$OUT/${run#"$STUDY"/}/judge.json" "$new/$rel/"
    done < <(tail -n +2 "$OUT/picks.tsv")
    { cat "$adv/frames.tsv"; printf '%s' "$ownframes"; } >"$new/frames.tsv"
    jq --argjson extra "$extra" --arg cmd "scripts/population-rejudge.sh (judging binary $JUDGE_BUILD): advice-$SIZE's rows, each pick retrained and judged on its policy-final; over $(jq -r .command "$adv/compare.json")" \
      '(.controllers | index("fixed-best8")) as $i | .controllers = (.controllers[:$i] + $extra + .controllers[$i:]) | .command = $cmd' "$adv/compare.json" >"$new/compare.json"
    rm -rf "$advfin"
    mv "$new" "$advfin"
    hj --log-level warn report "$advfin" --score judge --reference fixed-1 --out "$advfin/report" >/dev/null
    hj --log-level warn report "$advfin" --score judge --reference fixed-best4 --out "$advfin/report-half" >/dev/null
    finish_paths+=("$advfin")
  fi
  commit_paths "population re-judge: the comparison, verdict and advice of every pick's policy-final (judging binary $JUDGE_BUILD)$([ -n "$own" ] && echo ", with MF-PBT's re-run")" "${finish_paths[@]}"
  echo "population-rejudge: $fin/report-judge/report.md, $STUDY/verdict-final.md$([ -d "$adv" ] && echo ", $advfin/report/report.md and $advfin/report-half/report.md")"
  grep -E '^(No verdict yet|[a-z0-9-]+: )' "$STUDY/verdict-final.md" || true
}

mkdir -p "$OUT"
picks=$(mktemp)
trap 'rm -f "$picks"' EXIT
scripts/population-picks.py "$STUDY" >"$picks"
if [ -f "$OUT/picks.tsv" ]; then
  cmp -s "$picks" "$OUT/picks.tsv" || { echo "population-rejudge: $OUT/picks.tsv is not what scripts/population-picks.py $STUDY finds now (diff them); the plan's list of picks changed" >&2; exit 2; }
else
  cp "$picks" "$OUT/picks.tsv"
  commit_paths "population re-judge: the list of picks (scripts/population-picks.py $STUDY)" "$OUT/picks.tsv"
fi
if [ -f "$OUT/build.txt" ]; then
  [ "$(cat "$OUT/build.txt")" = "$JUDGE_BUILD" ] || { echo "population-rejudge: $OUT/build.txt names $(cat "$OUT/build.txt"), not JUDGE_BUILD=$JUDGE_BUILD: one judging binary" >&2; exit 2; }
else
  echo "$JUDGE_BUILD" >"$OUT/build.txt"
  commit_paths "population re-judge: the judging binary" "$OUT/build.txt"
fi

for phase in $PHASES; do
  case $phase in
    retrain)
      # This phase's runs, each once, in ROWS' order (default: best-of-8,
      # the population rows as picks.tsv names them, MF-PBT's old one
      # last of these, then the advice table's two).
      if [ -z "${ROWS:-}" ]; then
        pops=$(awk -F'\t' 'NR > 1 && $1 !~ /^fixed-/ && $1 != "mfpbt-8" && !seen[$1]++ { printf "%s ", $1 }' "$OUT/picks.tsv")
        grep -q $'^mfpbt-8\t' "$OUT/picks.tsv" && pops+="mfpbt-8 "
        ROWS="fixed-best8 ${pops}fixed-1 fixed-best4"
      fi
      runs=$(for r in $ROWS; do awk -F'\t' -v r="$r" 'NR > 1 && $1 == r { print $4 }' "$OUT/picks.tsv"; done | awk '!seen[$0]++')
      n=$(grep -c . <<<"$runs" || true)
      frames=$(awk -F'\t' 'NR == FNR { want[$0] = 1; next } FNR > 1 && ($4 in want) && !seen[$4]++ { f += $8 } END { print f + 0 }' <(printf '%s\n' "$runs") "$OUT/picks.tsv")
      echo "population-rejudge: $n picked runs of $ROWS, $frames frames; judging binary $JUDGE_BUILD ($(date -u +%FT%TZ))"
      build_bin "$JUDGE_BUILD"
      for b in $(awk -F'\t' 'NR == FNR { want[$0] = 1; next } FNR > 1 && ($4 in want) { print $7 }' <(printf '%s\n' "$runs") "$OUT/picks.tsv" | sort -u); do
        build_bin "$b"
      done
      printf '%s\n' "$runs" | xargs -r -P "$JOBS" -d '\n' -n 1 "$PWD/scripts/population-rejudge.sh" one-pick
      ;;
    finish) finish ;;
    *) echo "population-rejudge: unknown phase $phase (want retrain, finish)" >&2; exit 2 ;;
  esac
done
echo "population-rejudge: phases $PHASES done ($(date -u +%FT%TZ))"
