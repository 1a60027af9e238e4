#!/usr/bin/env bash
# mfpbt-own.sh: MF-PBT's deciding row of the population study trained again
# with the fixed migration (a receiver keeps its own random stream,
# population.json "receiver_random": "own"), as
# results/population-decide/README.md states ("MF-PBT's re-run"): the
# settings of the old row (results/population-decide/mfpbt/), population
# seeds 5-9 of HalfCheetah, Pusher and BipedalWalker, 8 members x 1M
# frames, ready every 50,000 frames, the paper's four keys, into
# OUT/pop/<env>/mfpbt-8/seed<S>, seed by seed (every environment of seed 5
# first).
#
# One binary, built from BUILD (default: OUT/build.txt, committed with the
# rule) into bin/hyperctl-study-<BUILD> (scripts/pinned-binary.sh). Each
# population, once finished, is
#   - checked against the old row's population of the same environment and
#     seed (OLD): the same method settings, size, seed, tuned keys and
#     member config (frames and ready as FRAMES and READY), and
#     "receiver_random": "own" (the old one has none: the donor's);
#   - judged (hyperctl judge: its best member's policy-final, the weights
#     result.json picked it on, on 50 fresh episodes);
#   - with COMMIT=1 committed: the folder as .gitignore keeps it (each
#     member's policy-best) and the picked member's policy-final (git add
#     -f), one commit per population.
# Resumable (a finished, judged population is skipped, an unfinished one
# continues exactly where it stopped) and niced (19). At the end it runs
# the re-judge's finish phase (scripts/population-rejudge.sh), which adds
# this row to the re-judged comparison (row mfpbt-own-8) once every pick
# there is judged too, and otherwise says what is short.
#
# Settings (environment variables):
#   OUT      this row's folder          results/population-decide/mfpbt-own
#   OLD      the old row's populations  results/population-decide/mfpbt/pop
#   ENVS     environments               halfcheetah pusher bipedalwalker
#   SEEDS    population seeds           5 6 7 8 9
#   FRAMES   frames a member            1000000
#   READY    frames a generation        50000
#   JOBS     members at once            2
#   COMMIT   1: commit each population as it is judged
#   FINISH   0: skip the re-judge's finish phase at the end (it reads
#            STUDY, JUDGE_BUILD and RUNS as scripts/population-rejudge.sh)
#   BUILD, HYPERCTL: the pinned binary's commit, and its path
#
# The command (15 populations, 120M frames):
#   COMMIT=1 scripts/mfpbt-own.sh
# A tiny dry run (its own folder, few frames, READY at least the largest
# batch of the tuned space, 6,000; no commit, no finish):
#   OUT=/tmp/mfpbt-own-dry BUILD=$(cat results/population-decide/mfpbt-own/build.txt) ENVS=pusher SEEDS=5 \
#     FRAMES=24576 READY=6144 FINISH=0 scripts/mfpbt-own.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"

OUT=${OUT:-results/population-decide/mfpbt-own}
OLD=${OLD:-results/population-decide/mfpbt/pop}
ENVS=${ENVS:-halfcheetah pusher bipedalwalker}
SEEDS=${SEEDS:-5 6 7 8 9}
FRAMES=${FRAMES:-1000000}
READY=${READY:-50000}
JOBS=${JOBS:-2}
COMMIT=${COMMIT:-0}
FINISH=${FINISH:-1}
SIZE=8
if [ -z "${BUILD:-}" ]; then
  BUILD=$(cat "$OUT/build.txt" 2>/dev/null) || { echo "mfpbt-own: set BUILD (the commit of the row's binary) for the first run" >&2; exit 2; }
fi
export BUILD
export HYPERCTL=${HYPERCTL:-$PWD/bin/hyperctl-study-$BUILD}

# commit_paths MESSAGE PATH...: with COMMIT=1, commit PATHs alone (the
# lock keeps them apart from scripts/population-rejudge.sh's commits).
commit_paths() {
  [ "$COMMIT" = 1 ] || return 0
  local msg=$1
  shift
  (
    flock 9
    git add -- "$@"
    # The pick's policy-final, which .gitignore keeps out of results.
    [ -z "${PICK:-}" ] || git add -f -- "$PICK/policy-final.json" "$PICK/policy-final.safetensors"
    git commit -q -m "$msg" -- "$@"
  ) 9>"$(git rev-parse --git-common-dir)/rerun-commit.lock"
}

hc() { nice -n 19 "$HYPERCTL" --log-format json "$@"; }

# same_settings NEW OLD: NEW's population.json defines OLD's population
# (frames and ready aside: FRAMES and READY), with the receiver's own
# random state.
same_settings() {
  /usr/bin/python3 - "$1/population.json" "$2/population.json" "$FRAMES" "$READY" <<'EOF'
import json, re, sys
new, old = (json.load(open(p)) for p in sys.argv[1:3])
frames, ready = int(sys.argv[3]), int(sys.argv[4])
bad = [k for k in ("env", "settings", "size", "seed", "tuned") if new.get(k) != old.get(k)]
if new.get("frames") != frames or new.get("ready") != ready:
    bad.append(f"frames/ready ({new.get('frames')}/{new.get('ready')}, want {frames}/{ready})")
if new.get("receiver_random") != "own":
    bad.append(f"receiver_random ({new.get('receiver_random')!r}, want 'own')")
if new["config"] != re.sub(r"(?m)^frames = \d+$", f"frames = {frames}", old["config"]):
    bad.append("config (the members' config.toml)")
if bad:
    sys.exit(f"mfpbt-own: {sys.argv[1]} differs from {sys.argv[2]} in: {', '.join(bad)}")
EOF
}

# one_pop ENV SEED: train (or continue) one population, check it, judge its
# pick, commit it.
one_pop() {
  local env=$1 seed=$2 dir old member
  dir=$OUT/pop/$env/mfpbt-$SIZE/seed$seed
  old=$OLD/$env/mfpbt-$SIZE/seed$seed
  [ -f "$old/population.json" ] || { echo "mfpbt-own: $old/population.json: missing; the old row's population is the settings' reference" >&2; return 1; }
  if [ -f "$dir/result.json" ]; then
    member=$dir/$(jq -r '.members[.best].dir' "$dir/result.json")
    [ "$(jq -r .policy "$member/judge.json" 2>/dev/null)" = policy-final ] && return 0
  fi
  mkdir -p "$(dirname "$dir")"
  hc population --env "$env" --method mfpbt --ready "$READY" --size "$SIZE" --seed "$seed" --frames "$FRAMES" \
    --iterations 1000 --jobs "$JOBS" --out "$dir" >>"$dir.log" 2>&1 ||
    { echo "mfpbt-own: $dir failed; see $dir.log and its members' train.log" >&2; return 1; }
  same_settings "$dir" "$old"
  hc judge "$dir" >>"$dir.log" 2>&1 || { echo "mfpbt-own: judging $dir's pick failed; see $dir.log" >&2; return 1; }
  member=$dir/$(jq -r '.members[.best].dir' "$dir/result.json")
  [ "$(jq -r .policy "$member/judge.json")" = policy-final ] || { echo "mfpbt-own: $member/judge.json judged $(jq -r .policy "$member/judge.json"), not policy-final" >&2; return 1; }
  mv "$dir.log" "$dir/population.log"
  PICK=$member commit_paths "population study: MF-PBT's re-run, $env seed $seed finished and judged: $(jq '.mean * 100 | round / 100' "$member/judge.json") (binary $BUILD)" "$dir"
  echo "mfpbt-own: $dir done: its pick $member, policy-final $(jq '.mean' "$member/judge.json") ($(date -u +%FT%TZ))"
}

source scripts/pinned-binary.sh # builds HYPERCTL from BUILD when it is not there
if study_build "$OUT" mfpbt-own; then
  commit_paths "population study: MF-PBT's re-run, its binary" "$OUT/build.txt"
fi
echo "mfpbt-own: $ENVS x seeds $SEEDS, $SIZE members x $FRAMES frames, ready $READY, binary $BUILD, into $OUT ($(date -u +%FT%TZ))"
for seed in $SEEDS; do
  for env in $ENVS; do
    one_pop "$env" "$seed"
  done
done
echo "mfpbt-own: done ($(date -u +%FT%TZ))"
if [ "$FINISH" = 1 ]; then
  # The re-judged comparison gains this row once its own picks are judged.
  # (Its own OUT is the re-judged picks' folder, not this one.)
  env -u OUT PHASES=finish COMMIT="$COMMIT" MFPBT_OWN="$OUT" scripts/population-rejudge.sh ||
    echo "mfpbt-own: the re-judge's finish phase is not done yet; it adds this row when scripts/population-rejudge.sh finishes" >&2
fi
