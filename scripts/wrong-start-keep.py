#!/usr/bin/python3
"""wrong-start-keep.py: which wrong starts of issue 37 are kept.

For every start of results/wrong-start/starts.tsv whose tuning runs
(results/wrong-start/tune/<start>, `fixed` from the start on seeds 100-104)
are all finished, it reads `hyperctl report --format json` of that folder
and of results/tune-control/fixed (fixed from the defaults, same seeds), and
normalises per environment

    score = (IQM from the start - random) / (IQM from the defaults - random)

with each IQM and the random policy's return as `report` computes them (the
IQM at the matched budget of the final evaluations, 10 episodes each). A
start is kept when its score is below 0.8 on at least 3 of 5 environments.
The table goes to results/wrong-start/keep.md.

Usage: scripts/wrong-start-keep.py [HYPERCTL]  (default: the tuning's binary,
bin/hyperctl-wrongstart-<commit of results/wrong-start/tune/*/build.txt>)
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "results/wrong-start/starts.tsv")
TUNE = os.path.join(ROOT, "results/wrong-start/tune")
DEFAULTS = os.path.join(ROOT, "results/tune-control/fixed")
ENVS = ["halfcheetah", "pusher", "bipedalwalker", "inverteddoublependulum", "reacher"]
SEEDS = range(100, 105)
THRESHOLD, NEEDED = 0.8, 3


def report(binary, folder):
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([binary, "--log-format", "json", "report", folder, "--format", "json",
                        "--out", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(out, "report.json")) as f:
            d = json.load(f)
    rnd = {r["env"]: r["mean"] for r in d["random_policy"]}
    iqm = {}
    for e in d["envs"]:
        for c in e["controllers"]:
            if c["controller"] == "fixed":
                iqm[e["env"]] = c["iqm_at_budget"]["point"]
    return iqm, rnd


def finished(folder):
    return all(os.path.exists(os.path.join(folder, env, "fixed", f"seed{s}", "summary.json"))
               for env in ENVS for s in SEEDS)


def main():
    starts = []
    with open(TABLE) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, _, sets, what = line.rstrip("\n").split("\t")
            starts.append((name, sets, what))
    binary = sys.argv[1] if len(sys.argv) > 1 else None
    if binary is None:
        builds = {open(os.path.join(TUNE, s, "build.txt")).read().strip()
                  for s, _, _ in starts if os.path.exists(os.path.join(TUNE, s, "build.txt"))}
        if len(builds) != 1:
            sys.exit(f"wrong-start-keep: want one tuning binary, found builds {sorted(builds)}")
        binary = os.path.join(ROOT, "bin", f"hyperctl-wrongstart-{builds.pop()}")
    ref, rnd = report(binary, DEFAULTS)
    rows, pending = [], []
    for name, sets, what in starts:
        folder = os.path.join(TUNE, name)
        if not finished(folder):
            pending.append(name)
            continue
        iqm, _ = report(binary, folder)
        scores = {e: (iqm[e] - rnd[e]) / (ref[e] - rnd[e]) for e in ENVS}
        hurt = sum(scores[e] < THRESHOLD for e in ENVS)
        rows.append((name, sets, what, scores, hurt, hurt >= NEEDED))
    out = ["# Wrong starts of issue 37: which are kept", "",
           "`fixed` from each start on seeds 100-104 at 1M frames, against `fixed` from the defaults on the same seeds "
           "(results/tune-control/fixed). Per environment: (IQM from the start - random) / (IQM from the defaults - random), "
           "each IQM and the random policy's return as `hyperctl report` computes them. "
           f"Kept: below {THRESHOLD} on at least {NEEDED} of 5 environments. Made by `scripts/wrong-start-keep.py`.", "",
           "| start | settings | " + " | ".join(ENVS) + " | below 0.8 | kept |",
           "|---|---|" + "---|" * len(ENVS) + "---|---|"]
    for name, sets, what, scores, hurt, keep in rows:
        out.append(f"| {name} | `{sets}` | " + " | ".join(f"{scores[e]:.2f}" for e in ENVS) +
                   f" | {hurt} of 5 | {'yes' if keep else 'no'} |")
    if pending:
        out += ["", "Not finished yet: " + ", ".join(pending) + "."]
    text = "\n".join(out) + "\n"
    with open(os.path.join(ROOT, "results/wrong-start/keep.md"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
