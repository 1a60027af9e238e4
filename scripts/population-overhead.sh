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
rm -rf "$OUT" && mkdir -p "$OUT"

now() { date +%s.%N; }
pop() { popwith "$HYPERCTL" "$1"; }
before() { popwith "$BEFORE" "$1"; }
popwith() {
  local bin=$1; shift
  nice -n "$NICE" "$bin" --log-level warn population --env "$ENV" --method "$METHOD" --size "$SIZE" --seed 0 \
    --frames "$FRAMES" --ready "$READY" --jobs "$JOBS" --out "$1" >/dev/null
}
fixed() {
  nice -n "$NICE" "$HYPERCTL" --log-level warn compare --env "$ENV" --controllers fixed --seeds "0-$((SIZE - 1))" \
    --frames "$FRAMES" --jobs "$JOBS" --out "$1" >/dev/null
}

BEFORE=${BEFORE:-}
echo "# $("$HYPERCTL" version 2>/dev/null | head -1)${BEFORE:+, before: $BEFORE}; env=$ENV method=$METHOD size=$SIZE frames=$FRAMES ready=$READY jobs=$JOBS; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'repeat\tpopulation_s\tfixed_s\tratio%b\n' "${BEFORE:+\tpopulation_before_s\tratio_before}"
ratios=() before_ratios=()
for r in $(seq 1 "$REPEATS"); do
  order="pop fixed"
  [ -n "$BEFORE" ] && order="pop before fixed"
  ((r % 2)) || order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' ')
  for which in $order; do
    t0=$(now)
    $which "$OUT/$which-$r"
    t1=$(now)
    eval "t_$which=\$(echo \"\$t1 - \$t0\" | bc -l)"
  done
  ratio=$(echo "$t_pop / $t_fixed" | bc -l)
  ratios+=("$ratio")
  if [ -n "$BEFORE" ]; then
    "$(dirname "$0")/population-same.py" "$OUT/pop-$r" "$OUT/before-$r" >&2
    rb=$(echo "$t_before / $t_fixed" | bc -l)
    before_ratios+=("$rb")
    printf '%d\t%.1f\t%.1f\t%.3f\t%.1f\t%.3f\n' "$r" "$t_pop" "$t_fixed" "$ratio" "$t_before" "$rb"
  else
    printf '%d\t%.1f\t%.1f\t%.3f\n' "$r" "$t_pop" "$t_fixed" "$ratio"
  fi
done
median() {
  printf '%s\n' "${@:2}" | sort -g | awk -v what="$1" '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "# median ratio %s / fixed: %.3f (min %.3f, max %.3f, %d repeats)\n", what, m, a[1], a[NR], NR}'
}
median population "${ratios[@]}"
[ -z "$BEFORE" ] || median "population (before)" "${before_ratios[@]}"
# The same repeats with the work normalised: how busy each command kept
# its JOBS slots (scripts/population-busy.py).
"$(dirname "$0")/population-busy.py" "$JOBS" --sitting "$OUT" | sed 's/^/# /'
