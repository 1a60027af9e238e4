#!/usr/bin/env bash
# population-overhead.sh: a population's wall time against its N `fixed`
# runs' on the same --jobs, measured in one sitting (issue 39, point 3).
#
# Each repeat runs, niced and in alternating order, `hyperctl population`
# (METHOD, SIZE members, seed 0, FRAMES each, a ready point every READY
# frames) and `hyperctl compare --controllers fixed` on the members'
# seeds 0 … SIZE−1 with the same FRAMES, both with --jobs JOBS, each into a
# fresh folder, and times each command from start to exit. With BEFORE (a
# hyperctl binary of an earlier commit) each repeat also runs the same
# population with it, so both ratios come from one sitting. It prints one
# TSV row per repeat and the median ratios population / fixed, and checks
# with scripts/population-same.py that every population of a repeat holds
# the same members' rows. Last, scripts/population-busy.py says how busy
# each command kept its slots and the work-normalised ratios.
#
# METHOD may name several methods ("pbt pb2"): each repeat then runs each
# population and one set of fixed runs, in rotating order, the populations
# into OUT/pop-METHOD-R, and prints one ratio per method.
#
# Usage: [HYPERCTL=bin/hyperctl] [BEFORE=bin/hyperctl-base] [ENV=halfcheetah] [METHOD=pbt] [SIZE=4]
#        [FRAMES=200000] [READY=50000] [JOBS=2] [REPEATS=3] [NICE=5]
#        [OUT=/tmp/popoverhead] scripts/population-overhead.sh
set -euo pipefail
HYPERCTL=${HYPERCTL:-bin/hyperctl}
ENV=${ENV:-halfcheetah}
METHOD=${METHOD:-pbt}
SIZE=${SIZE:-4}
FRAMES=${FRAMES:-200000}
READY=${READY:-50000}
JOBS=${JOBS:-2}
REPEATS=${REPEATS:-3}
NICE=${NICE:-5}
OUT=${OUT:-/tmp/popoverhead}
rm -rf "$OUT" && mkdir -p "$OUT/logs"

now() { date +%s.%N; }
popwith() {
  local bin=$1 method=$2 out=$3 log
  log="$OUT/logs/$(basename "$3").jsonl"
  # its debug log, for population-busy.py's split of the slots' time
  nice -n "$NICE" "$bin" --log-level debug --log-format json population --env "$ENV" --method "$method" --size "$SIZE" --seed 0 \
    --frames "$FRAMES" --ready "$READY" --jobs "$JOBS" --out "$out" >/dev/null 2>"$log" \
    || { tail -n 5 "$log" >&2; return 1; }
}
fixed() {
  nice -n "$NICE" "$HYPERCTL" --log-level warn compare --env "$ENV" --controllers fixed --seeds "0-$((SIZE - 1))" \
    --frames "$FRAMES" --jobs "$JOBS" --out "$1" >/dev/null
}

read -r -a methods <<<"$METHOD"
BEFORE=${BEFORE:-}
if [ -n "$BEFORE" ] && [ "${#methods[@]}" -ne 1 ]; then
  echo "population-overhead: BEFORE takes one METHOD, got '$METHOD'" >&2
  exit 2
fi
# name M: the folder stem of method M's populations (pop-R with one method).
name() { if [ "${#methods[@]}" -eq 1 ]; then echo pop; else echo "pop-$1"; fi; }
echo "# $("$HYPERCTL" version 2>/dev/null | head -1)${BEFORE:+, before: $BEFORE}; env=$ENV method=$METHOD size=$SIZE frames=$FRAMES ready=$READY jobs=$JOBS; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
header=repeat
for m in "${methods[@]}"; do header+="\t${m}_s"; done
header+="\tfixed_s"
for m in "${methods[@]}"; do header+="\tratio_$m"; done
[ -n "$BEFORE" ] && header+="\tpopulation_before_s\tratio_before"
printf "$header\n"
declare -A ratios t
before_ratios=()
for r in $(seq 1 "$REPEATS"); do
  order=("${methods[@]}" fixed)
  [ -n "$BEFORE" ] && order=("${methods[@]}" before fixed)
  # rotate the order by one each repeat, so no command always goes first
  n=${#order[@]} shift_by=$(( (r - 1) % n ))
  order=("${order[@]:shift_by}" "${order[@]:0:shift_by}")
  for which in "${order[@]}"; do
    t0=$(now)
    case $which in
      fixed) fixed "$OUT/fixed-$r" ;;
      before) popwith "$BEFORE" "${methods[0]}" "$OUT/before-$r" ;;
      *) popwith "$HYPERCTL" "$which" "$OUT/$(name "$which")-$r" ;;
    esac
    t1=$(now)
    t[$which]=$(echo "$t1 - $t0" | bc -l)
  done
  row="$r"
  for m in "${methods[@]}"; do row+=$(printf '\t%.1f' "${t[$m]}"); done
  row+=$(printf '\t%.1f' "${t[fixed]}")
  for m in "${methods[@]}"; do
    ratio=$(echo "${t[$m]} / ${t[fixed]}" | bc -l)
    ratios[$m]+="$ratio "
    row+=$(printf '\t%.3f' "$ratio")
  done
  if [ -n "$BEFORE" ]; then
    "$(dirname "$0")/population-same.py" "$OUT/pop-$r" "$OUT/before-$r" >&2
    rb=$(echo "${t[before]} / ${t[fixed]}" | bc -l)
    before_ratios+=("$rb")
    row+=$(printf '\t%.1f\t%.3f' "${t[before]}" "$rb")
  fi
  echo "$row"
done
median() {
  printf '%s\n' "${@:2}" | sort -g | awk -v what="$1" '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "# median ratio %s / fixed: %.3f (min %.3f, max %.3f, %d repeats)\n", what, m, a[1], a[NR], NR}'
}
for m in "${methods[@]}"; do
  # shellcheck disable=SC2086
  median "$m population" ${ratios[$m]}
done
[ -z "$BEFORE" ] || median "population (before)" "${before_ratios[@]}"
# The same repeats with the work normalised: how busy each command kept
# its JOBS slots (scripts/population-busy.py).
"$(dirname "$0")/population-busy.py" "$JOBS" --sitting "$OUT" | sed 's/^/# /'
