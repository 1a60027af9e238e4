#!/usr/bin/python3
"""wrong-start-defaults-env.py: the check at the defaults of the wrong-start
study, per environment, without numpy (point estimates, no intervals).

For each environment, seeds 0-4: the IQM of the normalised final evaluation
return (summary.json's final_eval_return) of `fixed` from the defaults
(results/decide-control, the control study's matrix) and of `hoof` over
the seven keys from the defaults (results/wrong-start/defaults/hoof), and
P(a hoof run > a fixed run), ties 1/2. Normalised as
scripts/wrong-start-stats.py does: (score - random) / (fixed's IQM over
seeds 0-9 - random), from results/decide-control/report/report.md. The IQM
drops floor(n/4) scores from each end (5 runs: the middle 3). The
aggregate figures with their 95 % CIs are `wrong-start-stats.py
defaults` (results/wrong-start/defaults/stats.md).

  scripts/wrong-start-defaults-env.py
"""
import glob
import json
import os
import re
import sys

ENVS = ["halfcheetah", "pusher", "bipedalwalker", "inverteddoublependulum", "reacher"]
SEEDS = range(5)


def normalisation(report):
    out = {}
    with open(report) as f:
        for line in f:
            m = re.match(r"\| (\w+) \| (-?[0-9.]+) ± [0-9.]+ \(\d+\) \| (-?[0-9.]+) \[", line)
            if m:
                out[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return out


def finals(folder, env, row):
    out = []
    for p in sorted(glob.glob(os.path.join(folder, env, row, "seed*", "summary.json"))):
        seed = int(os.path.basename(os.path.dirname(p))[len("seed"):])
        if seed in SEEDS:
            with open(p) as f:
                out.append(float(json.load(f)["final_eval_return"]))
    return out


def iqm(xs):
    s = sorted(xs)
    cut = len(s) // 4
    mid = s[cut:len(s) - cut]
    return sum(mid) / len(mid)


def prob_improvement(xs, ys):
    wins = sum((x > y) + 0.5 * (x == y) for x in xs for y in ys)
    return wins / (len(xs) * len(ys))


def main():
    norm = normalisation("results/decide-control/report/report.md")
    print("| environment | fixed: IQM | hoof, seven keys: IQM | P(hoof > fixed) |")
    print("|---|---|---|---|")
    for env in ENVS:
        rnd, ref = norm[env]
        n = lambda xs: [(x - rnd) / (ref - rnd) for x in xs]
        fx = n(finals("results/decide-control", env, "fixed"))
        hf = n(finals("results/wrong-start/defaults/hoof", env, "*"))
        if len(fx) != len(SEEDS) or len(hf) != len(SEEDS):
            sys.exit(f"wrong-start-defaults-env: {env}: {len(fx)} fixed and {len(hf)} hoof runs, want {len(SEEDS)} each")
        print(f"| {env} | {iqm(fx):.2f} | {iqm(hf):.2f} | {prob_improvement(hf, fx):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
