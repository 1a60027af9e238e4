#!/usr/bin/env bash
# bench.sh: the speed profile in one run. ROUNDS rounds (default 3), each
# measuring in turn:
#
#   env     the env-only floor: 1,001,472 HalfCheetah steps on an envs.Vec of
#           8 copies with 2 workers, no policy (BenchmarkEnvFloor, envs/mujoco;
#           MuJoCo only: no OpenBLAS or ATen kernels)
#   envc    the bare C env-stepping floor (envs/mujoco/cfloor/envfloor.c:
#           mj_step × 5 on half_cheetah.xml, -O3 -march=native), 1M
#           HalfCheetah frames in 1 process and in 2 at once, with zero
#           controls and with a run's random controls and resets
#           (env_c_floor below): lines "envc <what> <wall> s/1M-frames
#           <cpu> cpu-s/1M-frames", a summary row each
#   cfloor  the update floor, per kernel setting: CleanRL's PPO update of a
#           64-row minibatch of a 2048-frame batch at HalfCheetah's sizes in
#           C (hand-derived backward, register-blocked products of the
#           setting's vector width, glibc's vector tanh, Adam; -O3
#           -march=native -ffast-math; its gradient and Adam step are
#           checked against autograd by ppo's TestCFloorMatchesAutograd):
#           BenchmarkCFloor (ppo/internal/cfloor), whose name says the
#           products' and the tanh's kernels, and the same update with
#           OpenBLAS's cblas_sgemm for the products (BenchmarkCFloorBLAS,
#           "cfloorblas" lines); each round's faster of the two (by wall
#           time) is that round's floor
#   mb      the real minibatch, per kernel setting:
#           BenchmarkMinibatchUpdate/64x64 (ppo)
#   train   a real run, per TRAIN_KERNELS setting: hyperctl --log-format
#           json --log-level debug --kernels K train --env halfcheetah --controller fixed
#           --frames FRAMES --seed 0, with its "time split" log line (env,
#           rollout inference, GAE, update, the rest of each iteration,
#           evaluation, I/O, checkpoints)
#
# KERNELS (default "pinned native") are the kernel settings of the floors
# and the real minibatch: pinned runs the test binaries with
# OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2 (hyperctl's default,
# --kernels pinned), native without either variable (the libraries' choice
# for this CPU, --kernels native). TRAIN_KERNELS (default pinned) are the
# settings of the train runs. Every line and every row names its setting.
#
# It then prints medians and ranges, and the ratios: real minibatch /
# update floor on the same kernels, and floor time / real train time,
# where floor = the bare C env floor in 2 processes + update floor × the
# run's minibatch updates (489 iterations × 320 for 1M frames), evaluation
# left out (and, for comparison only, the same with BenchmarkEnvFloor, which
# runs hyperctl's own env code, as the env part). Each is given in
# wall time and in CPU time (the calling thread's for the minibatches, the
# process's for env and train): on a shared machine the CPU ratios are the
# steadier ones. FRAMES (default 1000000) shorter than 1M scales the train
# run's times up by 1001472 / its frames, said in the output.
#
#   nice -n 5 scripts/bench.sh | tee results/speed/bench-$(date -u +%F).txt
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
ROUNDS=${ROUNDS:-3}
FRAMES=${FRAMES:-1000000}
KERNELS=${KERNELS:-pinned native}
TRAIN_KERNELS=${TRAIN_KERNELS:-pinned}
tmp=$(mktemp -d /tmp/bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# on K CMD... runs CMD on kernel setting K: the variables OpenBLAS and
# libtorch read when they load, set (pinned) or removed (native).
on() {
  case "$1" in
    pinned) shift; env OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2 "$@" ;;
    native) shift; env -u OPENBLAS_CORETYPE -u ATEN_CPU_CAPABILITY "$@" ;;
    *) echo "bench: kernel setting '$1': want pinned or native" >&2; exit 2 ;;
  esac
}

# env_c_floor: the bare C env-stepping floor (envs/mujoco/cfloor/envfloor.c,
# mj_step × 5 on half_cheetah.xml, nothing else), for 1,001,472 HalfCheetah
# frames: in 1 process, and in 2 processes at once of 500,736 steps each
# (both cores, as training steps its copies); each with zero controls
# ("1proc", "2proc") and as a run's environment steps, with uniform random
# controls and a reset every 1000 steps ("1proc-acting", "2proc-acting"),
# which is cheaper on HalfCheetah. Wall time is the slower process's, CPU
# time the sum; both scaled to 1M frames. The floor of the 1M-frame ratio is
# each round's faster 2-process variant.
env_c_floor() {
  local p mode what
  for mode in zero acting; do
    local args=() suffix=""
    [ "$mode" = acting ] && args=(0 1000) suffix="-acting"
    "$tmp/envfloor" envs/mujoco/models/half_cheetah.xml 5 1001472 "${args[@]}" >"$tmp/envc1"
    for p in 1 2; do
      "$tmp/envfloor" envs/mujoco/models/half_cheetah.xml 5 500736 "${args[@]}" >"$tmp/envc2-$p" &
    done
    wait
    what=1proc$suffix
    awk -v what="$what" '{for (i = 1; i < NF; i++) {if ($(i+1) == "env-steps/s") w += 1001472 / $i; if ($(i+1) == "env-steps/cpu-s") c += 1001472 / $i}}
      END {printf "envc %s %.3f s/1M-frames %.3f cpu-s/1M-frames\n", what, w * 1e6 / 1001472, c * 1e6 / 1001472}' "$tmp/envc1"
    what=2proc$suffix
    awk -v what="$what" '{for (i = 1; i < NF; i++) {if ($(i+1) == "env-steps/s" && 500736 / $i > w) w = 500736 / $i; if ($(i+1) == "env-steps/cpu-s") c += 500736 / $i}}
      END {printf "envc %s %.3f s/1M-frames %.3f cpu-s/1M-frames\n", what, w * 1e6 / 1001472, c * 1e6 / 1001472}' "$tmp/envc2-1" "$tmp/envc2-2"
  done
}

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo "none (not a git checkout)")
git diff --quiet HEAD -- . ':!results' 2>/dev/null || commit+=" (with uncommitted changes, or no git)"
echo "bench: commit $commit, $(date -u +%FT%TZ), ROUNDS=$ROUNDS FRAMES=$FRAMES KERNELS=\"$KERNELS\" TRAIN_KERNELS=\"$TRAIN_KERNELS\""
echo "bench: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs; uptime at start:$(uptime | sed 's/.*load/ load/')"
go build -o "$tmp/hyperctl" ./cmd/hyperctl
go test -c -o "$tmp/env.test" ./envs/mujoco
cc -O3 -march=native -Wall -o "$tmp/envfloor" envs/mujoco/cfloor/envfloor.c -lmujoco
go test -c -o "$tmp/cfloor.test" ./ppo/internal/cfloor
go test -c -o "$tmp/ppo.test" ./ppo

for r in $(seq 1 "$ROUNDS"); do
  echo "round $r load$(uptime | sed 's/.*load average//')"
  "$tmp/env.test" -test.run '^$' -test.bench 'EnvFloor' -test.benchtime 1x -test.cpu 2 | grep '^Benchmark' | sed 's/^/env - /'
  env_c_floor
  for k in $KERNELS; do
    on "$k" "$tmp/cfloor.test" -test.run '^$' -test.bench 'CFloor$' -test.benchtime 20000x -test.cpu 2 | grep '^Benchmark' | sed "s/^/cfloor $k /"
    on "$k" "$tmp/cfloor.test" -test.run '^$' -test.bench 'CFloorBLAS' -test.benchtime 20000x -test.cpu 2 | grep '^Benchmark' | sed "s/^/cfloorblas $k /"
    (cd ppo && on "$k" "$tmp/ppo.test" -test.run '^$' -test.bench 'MinibatchUpdate/64x64$' -test.benchtime 300x -test.cpu 2 | grep '^Benchmark' | sed "s/^/mb $k /")
  done
  for k in $TRAIN_KERNELS; do
    /usr/bin/python3 - "$tmp/hyperctl" "$FRAMES" "$tmp/run$r-$k" "$k" <<'PY'
import json, resource, subprocess, sys, time
bin, frames, out, kernels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
p = subprocess.run([bin, "--log-format", "json", "--log-level", "debug", "--kernels", kernels, "train", "--env", "halfcheetah", "--controller", "fixed",
                    "--frames", frames, "--seed", "0", "--out", out], capture_output=True, text=True)
wall = time.monotonic() - t0
c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
if p.returncode != 0:
    sys.exit("bench: train failed:\n" + p.stderr[-2000:])
lines = [json.loads(l) for l in p.stderr.splitlines() if l.startswith("{")]
split = next(l for l in lines if l.get("message") == "time split")
summ = json.load(open(out + "/summary.json"))
split.update(process_wall_s=wall, process_cpu_s=c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime,
             frames=summ["frames"], iterations=summ["iterations"], final_eval=summ.get("final_eval_return"),
             kernels=summ.get("kernels", "?"))
print("train " + kernels + " " + json.dumps({k: v for k, v in split.items() if k not in ("level", "time", "message")}))
PY
  done
done 2>&1 | tee "$tmp/log"
echo "uptime at end:$(uptime | sed 's/.*load/ load/')"

/usr/bin/python3 - "$tmp/log" <<'PY'
import json, re, statistics, sys
env, envc, cfl, cflb, mb, tr, names, namesb = [], {}, {}, {}, {}, {}, {}, {}
for line in open(sys.argv[1]):
    kind, _, rest = line.partition(" ")
    k, _, rest = rest.partition(" ")
    def metric(unit):
        m = re.search(r"([0-9.]+) " + re.escape(unit) + r"(\s|$)", rest)
        return float(m.group(1))
    if kind == "env":
        env.append((metric("s/1M-frames"), metric("cpu-s/1M-frames")))
    elif kind == "envc":
        envc.setdefault(k, []).append((metric("s/1M-frames"), metric("cpu-s/1M-frames")))
    elif kind == "cfloor":
        cfl.setdefault(k, []).append((metric("µs/minibatch"), metric("cpu-µs/minibatch")))
        names[k] = rest.split()[0].split("/", 1)[-1].rsplit("-", 1)[0]
    elif kind == "cfloorblas":
        cflb.setdefault(k, []).append((metric("µs/minibatch"), metric("cpu-µs/minibatch")))
        namesb[k] = rest.split()[0].split("/", 1)[-1].rsplit("-", 1)[0]
    elif kind == "mb":
        mb.setdefault(k, []).append((metric("µs/minibatch"), metric("cpu-µs/minibatch")))
    elif kind == "train":
        tr.setdefault(k, []).append(json.loads(rest))
def stat(xs, fmt="%.1f"):
    return (fmt % statistics.median(xs)) + " (" + (fmt % min(xs)) + "–" + (fmt % max(xs)) + ")"
print("\nmedians (ranges) over the rounds")
print("| what | kernels | wall | CPU |\n|---|---|---|---|")
print(f"| env floor, 1M frames, 8 copies on 2 workers (s) | none (MuJoCo) | {stat([w for w, _ in env])} | {stat([c for _, c in env])} |")
for k, xs in envc.items():
    print(f"| bare C env floor {k}, 1M frames (s) | none (MuJoCo) | {stat([w for w, _ in xs])} | {stat([c for _, c in xs])} |")
for k in cfl:
    print(f"| update, register-blocked products (µs) | {k}: {names[k]} | {stat([w for w, _ in cfl[k]])} | {stat([c for _, c in cfl[k]])} |")
for k in cflb:
    print(f"| update, OpenBLAS's sgemm (µs) | {k}: {namesb[k]} | {stat([w for w, _ in cflb[k]])} | {stat([c for _, c in cflb[k]])} |")
# The update floor of a kernel setting is each round's faster (by wall
# time; its CPU time with it) of the two updates.
floor = {k: [min(a, b) for a, b in zip(cfl[k], cflb.get(k, cfl[k]))] for k in cfl}
for k in floor:
    print(f"| update floor: each round's faster of the two (µs) | {k} | {stat([w for w, _ in floor[k]])} | {stat([c for _, c in floor[k]])} |")
for k in mb:
    print(f"| real minibatch, BenchmarkMinibatchUpdate/64x64 (µs) | {k} | {stat([w for w, _ in mb[k]])} | {stat([c for _, c in mb[k]])} |")
if not tr:
    sys.exit(0)
run0 = next(iter(tr.values()))[0]
scale = 1001472 / run0["frames"]
mbs = run0["iterations"] * 320 * scale
print(f"\nthe train runs: {run0['frames']} frames, {run0['iterations']} iterations"
      + ("" if scale == 1 else f", their times scaled ×{scale:.3f} to 1,001,472 frames")
      + f"; {mbs:,.0f} minibatch updates per 1M frames")
for k, ts in tr.items():
    print(f"| real train run, 1M frames (s) | {k}: {ts[0]['kernels']} | {stat([t['process_wall_s'] * scale for t in ts])} | {stat([t['process_cpu_s'] * scale for t in ts])} |")
for k, ts in tr.items():
    print(f"\nwhere the {k} train run's wall time goes (s, scaled to 1M frames):\n| phase | median (range) | share of wall |\n|---|---|---|")
    for key in ["env_s", "inference_s", "gae_s", "update_s", "iteration_rest_s", "eval_s", "io_s", "checkpoint_s", "controller_s", "unaccounted_s", "wall_s"]:
        xs = [t[key] * scale for t in ts]
        print(f"| {key[:-2]} | {stat(xs, '%.2f')} | {100 * statistics.median(t[key] / t['wall_s'] for t in ts):.1f} % |")
    print(f"| update per minibatch (µs) | {stat([t['update_s'] * scale / mbs * 1e6 for t in ts])} | |")
print("\nratios, each round's own measurements (median and range over rounds):")
for k in floor:
    if k in mb:
        rw = [m[0] / c[0] for m, c in zip(mb[k], floor[k])]
        rc = [m[1] / c[1] for m, c in zip(mb[k], floor[k])]
        print(f"  {k}: real minibatch / update floor: wall {stat(rw, '%.2f')}, CPU {stat(rc, '%.2f')}")
# The floor's env part: the bare C env in 2 processes (the floor), and, for
# comparison only, hyperctl's own env loop (BenchmarkEnvFloor).
# The floor's env part is each round's faster 2-process variant (by wall
# time; its CPU time with it).
floor_env = [min(z, a) for z, a in zip(envc.get("2proc", []), envc.get("2proc-acting", []))] or envc.get("2proc")
env_parts = [("floor / real 1M-frame run (floor = bare C env, 2 processes, the faster of zero and acting controls + update floor × {mbs}; evaluation left out)", floor_env),
             ("the same with hyperctl's own env loop (BenchmarkEnvFloor) as the env part, for comparison only", env)]
for k, ts in tr.items():
    for label, part in env_parts:
        if k in floor and part:
            fw = [(e[0] + c[0] * mbs * 1e-6) / (t["process_wall_s"] * scale) for e, c, t in zip(part, floor[k], ts)]
            fc = [(e[1] + c[1] * mbs * 1e-6) / (t["process_cpu_s"] * scale) for e, c, t in zip(part, floor[k], ts)]
            print(f"  {k}: {label.format(mbs=f'{mbs:,.0f}')}: wall {stat(fw, '%.2f')}, CPU {stat(fc, '%.2f')}")
    print(f"  {k}: final evaluations: {sorted(set(round(t['final_eval'], 2) for t in ts))}")
PY
