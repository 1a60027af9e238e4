#!/usr/bin/python3
"""population-same.py: do two population folders hold the same population?

Compares the population log, the plans, the steps and result.json byte for
byte, and every member's train.csv and eval.csv with their timing columns
(wall_time_s, controller_time_s) left out. population.json and compare.json
name the command (its --out), so they are not compared.

Usage: scripts/population-same.py A B   (exit 0: the same; 1: a difference, printed)
"""
import csv
import glob
import os
import sys

TIMING = {"wall_time_s", "controller_time_s"}


def rows(path):
    with open(path, newline="") as f:
        r = list(csv.reader(f))
    keep = [i for i, c in enumerate(r[0]) if c not in TIMING]
    return [[row[i] for i in keep] for row in r]


a, b = sys.argv[1], sys.argv[2]
bad, n = [], 0
for p in sorted(glob.glob(os.path.join(a, "**"), recursive=True)):
    rel = os.path.relpath(p, a)
    q = os.path.join(b, rel)
    if os.path.isdir(p):
        continue
    if rel in ("population.jsonl", "result.json") or rel.startswith("generations" + os.sep):
        n += 1
        if not os.path.exists(q) or open(p, "rb").read() != open(q, "rb").read():
            bad.append(rel)
    elif os.path.basename(rel) in ("train.csv", "eval.csv"):
        n += 1
        if not os.path.exists(q) or rows(p) != rows(q):
            bad.append(rel)
print(f"population-same: {n} files compared, {len(bad)} differ" + "".join("\n  " + x for x in bad))
sys.exit(1 if bad or n == 0 else 0)
