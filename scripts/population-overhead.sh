#!/usr/bin/env bash
# population-overhead.sh: a population's wall time against its N `fixed`
# runs' on the same --jobs, measured in one sitting (issue 39, point 3).
#
# Each repeat runs, niced and in alternating order, `hyperctl population`
# (METHOD, SIZE members, seed 0, FRAMES each, a ready point every READY
# frames) and `hyperctl compare --controllers fixed` on the members'
# seeds 0 … SIZE−1 with the same FRAMES, both with --jobs JOBS, each into a
# fresh folder, and times each command from start to exit. It prints one
# TSV row per repeat and the median ratio population / fixed.
#
# Usage: [HYPERCTL=bin/hyperctl] [ENV=halfcheetah] [METHOD=pbt] [SIZE=4]
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
pop() {
  nice -n "$NICE" "$HYPERCTL" --log-level warn population --env "$ENV" --method "$METHOD" --size "$SIZE" --seed 0 \
    --frames "$FRAMES" --ready "$READY" --jobs "$JOBS" --out "$1" >/dev/null
}
fixed() {
  nice -n "$NICE" "$HYPERCTL" --log-level warn compare --env "$ENV" --controllers fixed --seeds "0-$((SIZE - 1))" \
    --frames "$FRAMES" --jobs "$JOBS" --out "$1" >/dev/null
}

echo "# $("$HYPERCTL" version 2>/dev/null | head -1); env=$ENV method=$METHOD size=$SIZE frames=$FRAMES ready=$READY jobs=$JOBS; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'repeat\tpopulation_s\tfixed_s\tratio\n'
ratios=()
for r in $(seq 1 "$REPEATS"); do
  for which in $( ((r % 2)) && echo "pop fixed" || echo "fixed pop"); do
    t0=$(now)
    $which "$OUT/$which-$r"
    t1=$(now)
    eval "t_$which=\$(echo \"\$t1 - \$t0\" | bc -l)"
  done
  ratio=$(echo "$t_pop / $t_fixed" | bc -l)
  ratios+=("$ratio")
  printf '%d\t%.1f\t%.1f\t%.3f\n' "$r" "$t_pop" "$t_fixed" "$ratio"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "# median ratio population / fixed: %.3f (min %.3f, max %.3f, %d repeats)\n", m, a[1], a[NR], NR}'
