#!/usr/bin/python3
"""same-run.py: the one rule for "the same run" between two run folders.

A deterministic run writes the same train.csv and eval.csv rows, the same
summary.json fields and the same policy weights every time; only the timing
columns and fields (wall_time_s, controller_time_s, frames_per_second)
vary from one sitting to the next. Everything else must be equal.
summary.json's "kernels" (the float kernels the run computed with, recorded
since the kernel choice) is compared when both folders record it;
"hyperctl_version" (the build that trained the run, recorded since the
study that pins one binary) names the binary, not the run, and is not
compared.

  same-run.py WANT GOT          two run folders: train.csv, eval.csv,
                                summary.json, and the policy-*.safetensors
                                both have; one line of counts
  same-run.py --rows WANT GOT   two CSV files: "identical/total" rows of
                                WANT found in GOT (plus GOT's row count
                                when it differs)

Exit status 0 only when everything compared is the same.
"""
import csv
import filecmp
import json
import os
import sys

TIMING = {"wall_time_s", "controller_time_s", "frames_per_second"}
BUILD = {"hyperctl_version"}


def rows(path):
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k not in TIMING} for r in csv.DictReader(f)]


def compare_rows(want, got):
    """Returns (identical rows, rows of want, rows of got)."""
    a, b = rows(want), rows(got)
    return sum(1 for x, y in zip(a, b) if x == y), len(a), len(b)


def compare_runs(old, new):
    msgs, counts = [], []
    for name in ("train.csv", "eval.csv"):
        same, n, m = compare_rows(f"{old}/{name}", f"{new}/{name}")
        counts.append(f"{name} {same}/{n} rows")
        if n != m or same != n:
            a, b = rows(f"{old}/{name}"), rows(f"{new}/{name}")
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(n, m))
            msgs.append(f"{name}: {n} vs {m} rows, first difference at row {first}")
    sa, sb = (json.load(open(f"{d}/summary.json")) for d in (old, new))
    skip = TIMING | BUILD | ({"kernels"} if ("kernels" in sa) != ("kernels" in sb) else set())
    sa, sb = ({k: v for k, v in s.items() if k not in skip} for s in (sa, sb))
    diff = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
    counts.append(f"summary.json {len(sa) - len(diff)}/{len(sa)} fields")
    if diff:
        msgs.append("summary.json differs in " + ", ".join(diff))
    for name in ("policy-final.safetensors", "policy-best.safetensors"):  # when both runs have them
        if os.path.exists(f"{old}/{name}") and os.path.exists(f"{new}/{name}"):
            same = filecmp.cmp(f"{old}/{name}", f"{new}/{name}", shallow=False)
            counts.append(f"{name} {'identical' if same else 'DIFFERS'}")
            if not same:
                msgs.append(f"{name} differs")
    print(("identical" if not msgs else "DIFFERENT") + ": " + ", ".join(counts)
          + f"; final eval {sb.get('final_eval_return')}" + ("" if not msgs else "; " + "; ".join(msgs)))
    return not msgs


def main(argv):
    if len(argv) == 4 and argv[1] == "--rows":
        same, n, m = compare_rows(argv[2], argv[3])
        print(f"{same}/{n}" + (f" (the other has {m} rows)" if m != n else ""), end="")
        return 0 if same == n == m else 1
    if len(argv) == 3:
        return 0 if compare_runs(argv[1], argv[2]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
