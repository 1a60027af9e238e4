#!/usr/bin/python3
"""protocol-time.py estimates how long the paper's full protocol takes on
Slurm nodes of a given size, from the wall times MEASURED in finished compare
runs (summary.json's wall_time_s).

    /usr/bin/python3 scripts/protocol-time.py results/study results/study-300it /path/to/study-1000it

The protocol: 5 environments x 7 controllers (6 methods and fixed) x 10
seeds x 1000 iterations = 350 runs. For each (environment, controller) the
estimate of one 1000-iteration run is, from the longest tier measured:
the median wall time of the finished 1000-iteration runs if there are any,
else 1000 x the median wall time per iteration of the longest shorter tier
(a linear extrapolation; the script prints how well it held where both a
short tier and the 1000-iteration tier exist).

The measured runs ran two at a time, one thread each, on a 2-core machine
(`compare --jobs 2`), which is what a 2-core node runs with
`--backend slurm --cpus-per-task 1`: slots = 2 x nodes. The wall time of N
nodes is the makespan of the 350 runs over the slots, scheduled longest
first (Slurm starts array tasks in index order; the bound is within one run
of any order): at least total/slots and at least the longest run.

Standard library only.
"""
import glob
import heapq
import json
import os
import statistics
import sys

ENVS = ["halfcheetah", "bipedalwalker", "pusher", "inverteddoublependulum", "reacher"]
CTRLS = ["hypercontroller", "gpucb", "pb2", "hyperband", "random", "randomstart", "fixed"]
SEEDS, ITERS, CORES_PER_NODE = 10, 1000, 2


def load(root):
    """(env, controller) -> list of (iterations, wall_time_s) of finished runs."""
    runs = {}
    for p in glob.glob(os.path.join(root, "*", "*", "seed*", "summary.json")):
        with open(p) as f:
            s = json.load(f)
        runs.setdefault((s["env"], s["controller"]), []).append((s["iterations"], s["wall_time_s"]))
    return runs


def makespan(times, slots):
    """Longest-first list scheduling of run times over slots."""
    heap = [0.0] * slots
    for t in sorted(times, reverse=True):
        heapq.heapreplace(heap, heap[0] + t)
    return max(heap)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tiers = {}
    for root in sys.argv[1:]:
        for key, runs in load(root).items():
            for it, wall in runs:
                tiers.setdefault(key, {}).setdefault(it, []).append(wall)
    est, check = {}, []
    print("per-run estimate of a 1000-iteration run (median over seeds):")
    print(f"{'env':24s} {'controller':16s} {'source':28s} {'est. s':>8s}")
    for e in ENVS:
        for c in CTRLS:
            t = tiers.get((e, c))
            if not t:
                sys.exit(f"no finished run of {e}/{c} in {sys.argv[1:]}")
            if ITERS in t:
                est[e, c] = statistics.median(t[ITERS])
                src = f"{len(t[ITERS])} run(s) of {ITERS} it"
                for short in sorted(i for i in t if i < ITERS):
                    check.append(est[e, c] / (ITERS * statistics.median(w / short for w in t[short])))
            else:
                longest = max(t)
                est[e, c] = ITERS * statistics.median(w / longest for w in t[longest])
                src = f"{len(t[longest])} run(s) of {longest} it, x{ITERS // longest}"
            print(f"{e:24s} {c:16s} {src:28s} {est[e, c]:8.0f}")
    if check:
        print(f"\nlinear extrapolation check: measured 1000-it time / (1000 x per-iteration time of a shorter tier),"
              f" {len(check)} pairs: median {statistics.median(check):.2f}, range {min(check):.2f}-{max(check):.2f}")
    times = [est[e, c] for e in ENVS for c in CTRLS for _ in range(SEEDS)]
    total = sum(times)
    print(f"\n{len(times)} runs, {total:.0f} s of run time at 2 runs per 2-core node"
          f" ({total / 3600:.1f} h if run one after another)")
    print(f"{'nodes':>5s} {'slots':>5s} {'total/slots h':>14s} {'makespan h':>11s}")
    for n in (1, 4, 16):
        slots = n * CORES_PER_NODE
        print(f"{n:5d} {slots:5d} {total / slots / 3600:14.2f} {makespan(times, slots) / 3600:11.2f}")


if __name__ == "__main__":
    main()
