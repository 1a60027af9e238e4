#!/usr/bin/env bash
# env-floor.sh: how close each MuJoCo environment's stepping comes to the
# bare C loop. For every environment it runs, STEPS env steps each (default
# 20000), with zero actions from qpos0 and no resets:
#
#   C       envs/mujoco/cfloor/envfloor.c, built with cc -O3 -march=native
#           against -lmujoco: load the model file, mj_step x frame_skip per
#           env step, nothing else
#   Go      BenchmarkEnvVsFloor (envs/mujoco): the Go environment's Step
#           (action copy, physics through cgo, observation, reward), and
#           interleaved with it the same physics as one C loop in-process
#
# and prints env steps/s (wall and CPU time) and the ratio C floor / Go env
# (the env's time per step over the floor's: 1.00 = no overhead), on wall
# and on CPU time, plus the in-process env/floor ratio. With --procs 2 it
# runs two copies of each side at once (both cores busy) and reports the
# mean of the two. The machine's load is printed before each environment;
# on a shared machine the CPU-time ratios are the steadier.
#
#   nice -n 5 scripts/env-floor.sh [--procs 1|2] [ENV...]
#   STEPS=50000 scripts/env-floor.sh hopper walker2d
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
procs=1
if [[ ${1:-} == --procs ]]; then
  procs=${2:?--procs needs 1 or 2}
  shift 2
fi
[[ $procs == 1 || $procs == 2 ]] || { echo "env-floor: --procs must be 1 or 2" >&2; exit 2; }
STEPS=${STEPS:-20000}

# name, model file (envs/mujoco/models), frame_skip, and 1 where the
# environment also runs mj_rnePostConstraint once per step (its observation
# reads cfrc_ext): one row per environment.
table="ant ant.xml 5 0
halfcheetah half_cheetah.xml 5 0
hopper hopper.xml 4 0
humanoid humanoid.xml 5 1
inverteddoublependulum inverted_double_pendulum.xml 5 0
invertedpendulum inverted_pendulum.xml 2 0
pusher pusher.xml 5 0
reacher reacher.xml 2 0
swimmer swimmer.xml 4 0
walker2d walker2d.xml 4 0"
want=("$@")
if [[ ${#want[@]} == 0 ]]; then
  read -r -a want <<< "$(cut -d' ' -f1 <<< "$table" | tr '\n' ' ')"
fi

tmp=$(mktemp -d /tmp/env-floor.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -O3 -march=native -Wall -o "$tmp/envfloor" envs/mujoco/cfloor/envfloor.c -lmujoco
go test -c -o "$tmp/env.test" ./envs/mujoco

# mean VALUE-BEFORE-UNIT FILE...: the mean over files of the number before
# a unit (envfloor and go test both print "value unit").
mean() {
  local unit=$1
  shift
  awk -v u="$unit" '{for (i = 2; i <= NF; i++) if ($i == u) {s += $(i-1); n++}} END {if (n) printf "%.0f", s / n; else print "nan"}' "$@"
}
meanf() {
  local unit=$1
  shift
  awk -v u="$unit" '{for (i = 2; i <= NF; i++) if ($i == u) {s += $(i-1); n++}} END {if (n) printf "%.3f", s / n; else print "nan"}' "$@"
}

echo "env-floor: commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo none), $(date -u +%FT%TZ), STEPS=$STEPS, $procs process(es) per side"
printf '%-24s %12s %12s %12s %12s %9s %9s %9s\n' env C/s C/cpu-s Go/s Go/cpu-s ratio ratio-cpu inproc-cpu
for name in "${want[@]}"; do
  row=$(awk -v n="$name" '$1 == n' <<< "$table")
  [[ -n $row ]] || { echo "env-floor: no environment $name in the table" >&2; exit 2; }
  read -r _ file skip post <<< "$row"
  echo "# $name: load$(uptime | sed 's/.*load average//')"
  for p in $(seq 1 "$procs"); do
    "$tmp/envfloor" "envs/mujoco/models/$file" "$skip" "$STEPS" "$post" > "$tmp/c$p" &
  done
  wait
  for p in $(seq 1 "$procs"); do
    "$tmp/env.test" -test.run '^$' -test.bench "EnvVsFloor/^$name\$" -test.benchtime "${STEPS}x" -test.cpu 1 \
      | grep '^Benchmark' > "$tmp/g$p" &
  done
  wait
  cs=$(mean env-steps/s "$tmp"/c*); cc_=$(mean env-steps/cpu-s "$tmp"/c*)
  gs=$(mean env-steps/s "$tmp"/g*); gc=$(mean env-steps/cpu-s "$tmp"/g*)
  inproc=$(meanf env/floor-cpu "$tmp"/g*)
  printf '%-24s %12s %12s %12s %12s %9s %9s %9s\n' "$name" "$cs" "$cc_" "$gs" "$gc" \
    "$(awk -v a="$cs" -v b="$gs" 'BEGIN {printf "%.3f", a / b}')" \
    "$(awk -v a="$cc_" -v b="$gc" 'BEGIN {printf "%.3f", a / b}')" "$inproc"
  rm -f "$tmp"/c* "$tmp"/g*
done
