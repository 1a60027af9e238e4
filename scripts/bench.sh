#!/usr/bin/env bash
# bench.sh: the speed profile of issue 39 in one run. ROUNDS rounds (default
# 3), each measuring in turn:
#
#   env     the env-only floor: 1,001,472 HalfCheetah steps on an envs.Vec of
#           8 copies with 2 workers, no policy (BenchmarkEnvFloor, envs/mujoco)
#   cfloor  the minibatch C floor: 64×64 tanh actor and critic, forward,
#           hand-written backward, Adam, OpenBLAS sgemm called directly
#           (BenchmarkCFloor, ppo/internal/cfloor)
#   mb      the real minibatch: BenchmarkMinibatchUpdate/64x64 (ppo)
#   train   a real run: hyperctl --log-format json --log-level debug train
#           --env halfcheetah
#           --controller fixed --frames FRAMES --seed 0, with its "time split"
#           log line (env, rollout inference, GAE, update, the rest of each
#           iteration, evaluation, I/O, checkpoints)
#
# then prints medians and ranges, and the ratios: real minibatch / C floor,
# and floor time / real train time, where floor = env floor + C-floor
# minibatch × the run's minibatch updates (489 iterations × 320 for 1M
# frames), evaluation left out. Each is given in wall time and in CPU time
# (the calling thread's for the minibatches, the process's for env and
# train): on a shared machine the CPU ratios are the steadier ones. FRAMES
# (default 1000000) shorter than 1M scales the train run's times up by
# 1001472 / its frames, said in the output.
#
#   nice -n 5 scripts/bench.sh | tee results/speed/bench-$(date -u +%F).txt
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
ROUNDS=${ROUNDS:-3}
FRAMES=${FRAMES:-1000000}
tmp=$(mktemp -d /tmp/bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo "none (not a git checkout)")
git diff --quiet HEAD -- . ':!results' 2>/dev/null || commit+=" (with uncommitted changes, or no git)"
echo "bench: commit $commit, $(date -u +%FT%TZ), ROUNDS=$ROUNDS FRAMES=$FRAMES"
echo "bench: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs; uptime at start:$(uptime | sed 's/.*load/ load/')"
go build -o "$tmp/hyperctl" ./cmd/hyperctl
go test -c -o "$tmp/env.test" ./envs/mujoco
go test -c -o "$tmp/cfloor.test" ./ppo/internal/cfloor
go test -c -o "$tmp/ppo.test" ./ppo

for r in $(seq 1 "$ROUNDS"); do
  echo "round $r load$(uptime | sed 's/.*load average//')"
  "$tmp/env.test" -test.run '^$' -test.bench 'EnvFloor' -test.benchtime 1x -test.cpu 2 | grep '^Benchmark' | sed 's/^/env /'
  "$tmp/cfloor.test" -test.run '^$' -test.bench 'CFloor' -test.benchtime 20000x -test.cpu 2 | grep '^Benchmark' | sed 's/^/cfloor /'
  (cd ppo && "$tmp/ppo.test" -test.run '^$' -test.bench 'MinibatchUpdate/64x64$' -test.benchtime 300x -test.cpu 2 | grep '^Benchmark' | sed 's/^/mb /')
  /usr/bin/python3 - "$tmp/hyperctl" "$FRAMES" "$tmp/run$r" <<'PY'
import json, resource, subprocess, sys, time
bin, frames, out = sys.argv[1], sys.argv[2], sys.argv[3]
c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
p = subprocess.run([bin, "--log-format", "json", "--log-level", "debug", "train", "--env", "halfcheetah", "--controller", "fixed",
                    "--frames", frames, "--seed", "0", "--out", out], capture_output=True, text=True)
wall = time.monotonic() - t0
c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
if p.returncode != 0:
    sys.exit("bench: train failed:\n" + p.stderr[-2000:])
split = next(json.loads(l) for l in p.stderr.splitlines() if '"time split"' in l)
summ = json.load(open(out + "/summary.json"))
split.update(process_wall_s=wall, process_cpu_s=c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime,
             frames=summ["frames"], iterations=summ["iterations"], final_eval=summ.get("final_eval_return"))
print("train " + json.dumps({k: v for k, v in split.items() if k not in ("level", "time", "message")}))
PY
done 2>&1 | tee "$tmp/log"
echo "uptime at end:$(uptime | sed 's/.*load/ load/')"

/usr/bin/python3 - "$tmp/log" <<'PY'
import json, re, statistics, sys
env, cfl, mb, tr = [], [], [], []
for line in open(sys.argv[1]):
    kind, _, rest = line.partition(" ")
    def metric(unit):
        m = re.search(r"([0-9.]+) " + re.escape(unit) + r"(\s|$)", rest)
        return float(m.group(1))
    if kind == "env":
        env.append((metric("s/1M-frames"), metric("cpu-s/1M-frames")))
    elif kind == "cfloor":
        cfl.append((metric("µs/minibatch"), metric("cpu-µs/minibatch")))
    elif kind == "mb":
        mb.append((metric("µs/minibatch"), metric("cpu-µs/minibatch")))
    elif kind == "train":
        tr.append(json.loads(rest))
def stat(xs, fmt="%.1f"):
    return (fmt % statistics.median(xs)) + " (" + (fmt % min(xs)) + "–" + (fmt % max(xs)) + ")"
t0 = tr[0]
scale = 1001472 / t0["frames"]
mbs = t0["iterations"] * 320 * scale
print(f"\nmedians (ranges) over {len(tr)} rounds; the train run: {t0['frames']} frames, {t0['iterations']} iterations"
      + ("" if scale == 1 else f", its times scaled ×{scale:.3f} to 1,001,472 frames")
      + f"; {mbs:,.0f} minibatch updates per 1M frames")
print("| what | wall | CPU |\n|---|---|---|")
print(f"| env floor, 1M frames, 8 copies on 2 workers (s) | {stat([w for w, _ in env])} | {stat([c for _, c in env])} |")
print(f"| minibatch C floor (µs) | {stat([w for w, _ in cfl])} | {stat([c for _, c in cfl])} |")
print(f"| real minibatch, BenchmarkMinibatchUpdate/64x64 (µs) | {stat([w for w, _ in mb])} | {stat([c for _, c in mb])} |")
print(f"| real train run, 1M frames (s) | {stat([t['process_wall_s'] * scale for t in tr])} | {stat([t['process_cpu_s'] * scale for t in tr])} |")
print("\nwhere the train run's wall time goes (s, scaled to 1M frames):\n| phase | median (range) | share of wall |\n|---|---|---|")
for k in ["env_s", "inference_s", "gae_s", "update_s", "iteration_rest_s", "eval_s", "io_s", "checkpoint_s", "controller_s", "unaccounted_s", "wall_s"]:
    xs = [t[k] * scale for t in tr]
    print(f"| {k[:-2]} | {stat(xs, '%.2f')} | {100 * statistics.median(t[k] / t['wall_s'] for t in tr):.1f} % |")
print(f"| update per minibatch (µs) | {stat([t['update_s'] * scale / mbs * 1e6 for t in tr])} | |")
print("\nratios, each round's own measurements (median and range over rounds):")
rw = [m[0] / c[0] for m, c in zip(mb, cfl)]
rc = [m[1] / c[1] for m, c in zip(mb, cfl)]
print(f"  real minibatch / C floor: wall {stat(rw, '%.2f')}, CPU {stat(rc, '%.2f')}")
fw = [(e[0] + c[0] * mbs * 1e-6) / (t["process_wall_s"] * scale) for e, c, t in zip(env, cfl, tr)]
fc = [(e[1] + c[1] * mbs * 1e-6) / (t["process_cpu_s"] * scale) for e, c, t in zip(env, cfl, tr)]
print(f"  floor / real 1M-frame run (floor = env floor + C floor × {mbs:,.0f}; evaluation left out): wall {stat(fw, '%.2f')}, CPU {stat(fc, '%.2f')}")
print(f"  final evaluations: {sorted(set(round(t['final_eval'], 2) for t in tr))}")
PY
