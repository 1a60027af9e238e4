#!/usr/bin/python3
"""population-walltime.py: the wall time of every finished population of
issue 26's study, and of the N fixed runs it is compared with.

A population's wall time is the mtime of its result.json (written last)
minus that of its population.json (written first), so it holds only where
the study ran: a clone's files carry the checkout's mtimes. Rows already in
the table are kept, and a population whose two mtimes are less than a
second apart (a clone) is skipped with a warning, so running this again
never loses a measurement. The fixed runs' time is the sum of their
summary.json wall_time_s (each run's own training time) divided by JOBS,
what the same N runs take on JOBS processes at once.

Usage: scripts/population-walltime.py [OUT [JOBS]]   (defaults: results/population 2)
Writes OUT/wall-time.tsv and prints the medians per environment and row.
"""
import csv
import glob
import json
import os
import statistics
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "results/population"
jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 2
path = os.path.join(out, "wall-time.tsv")
cols = ["env", "row", "seed", "population_wall_s", "fixed_runs_wall_s_over_jobs"]
rows = {}
if os.path.exists(path):
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows[(r["env"], r["row"], r["seed"])] = r

for pop in sorted(glob.glob(os.path.join(out, "pop", "*", "*", "seed*"))):
    res = os.path.join(pop, "result.json")
    if not os.path.exists(res):
        continue
    env, row, seed = pop.split(os.sep)[-3:]
    key = (env, row, seed.removeprefix("seed"))
    if key in rows:
        continue
    wall = os.path.getmtime(res) - os.path.getmtime(os.path.join(pop, "population.json"))
    if wall < 1:
        print(f"population-walltime: {pop}: its files' mtimes are {wall:.3f} s apart (a clone?); skipped", file=sys.stderr)
        continue
    with open(os.path.join(pop, "population.json")) as f:
        d = json.load(f)
    n, s = d["size"], d["seed"]
    fixed = 0.0
    for k in range(n):
        summary = os.path.join(out, "fixed", env, "fixed", f"seed{s * n + k}", "summary.json")
        try:
            with open(summary) as f:
                fixed += float(json.load(f)["wall_time_s"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"population-walltime: {pop}: its fixed run {summary}: {e}; skipped (run scripts/population-study.sh to finish it)", file=sys.stderr)
            break
    else:
        rows[key] = {"env": env, "row": row, "seed": key[2], "population_wall_s": f"{wall:.1f}",
                     "fixed_runs_wall_s_over_jobs": f"{fixed / jobs:.1f}"}

with open(path + ".tmp", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=cols, delimiter="\t", lineterminator="\n")
    w.writeheader()
    for key in sorted(rows, key=lambda k: (k[0], k[1], int(k[2]))):
        w.writerow(rows[key])
os.replace(path + ".tmp", path)

groups = {}
for r in rows.values():
    groups.setdefault((r["env"], r["row"]), []).append(r)
for (env, row), rs in sorted(groups.items()):
    p = [float(r["population_wall_s"]) for r in rs]
    fx = [float(r["fixed_runs_wall_s_over_jobs"]) for r in rs]
    print(f"{env}\t{row}\t{len(rs)} populations\twall median {statistics.median(p):.0f} s [{min(p):.0f}, {max(p):.0f}]"
          f"\tfixed runs / {jobs} jobs median {statistics.median(fx):.0f} s")
print(f"population-walltime: wrote {path}")
