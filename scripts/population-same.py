#!/usr/bin/python3
"""population-same.py: do two population folders hold the same population?

Compares the population log, the plans, the steps and result.json byte for
byte, and every member's train.csv and eval.csv by scripts/same-run.py's rule (every
row identical, timing columns aside). population.json and compare.json
name the command (its --out), so they are not compared.

Usage: scripts/population-same.py A B   (exit 0: the same; 1: a difference, printed)
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
same_run = __import__("same-run")  # the one rule for "the same run"


def same_rows(p, q):
    ok, n, m = same_run.compare_rows(p, q)
    return ok == n == m


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
        if not os.path.exists(q) or not same_rows(p, q):
            bad.append(rel)
print(f"population-same: {n} files compared, {len(bad)} differ" + "".join("\n  " + x for x in bad))
sys.exit(1 if bad or n == 0 else 0)
