#!/usr/bin/python3
"""population-verdict.py: the README rule of issue 36's deciding study
("The rule of issue 36's deciding study"), applied to its comparison.

It runs `hyperctl report OUT/compare-8 --score judge --reference
fixed-best8 --format json` (every pick judged on 50 fresh episodes;
scores normalised per environment, 1 = best-of-8's IQM) and reads
OUT/compare-8/frames.tsv (written by scripts/population-compare.sh). For
every row other than best-of-8 it prints:

  per environment   the row's IQM of the judged score against best-of-8's
  aggregate         IQM of the normalised scores [95 % CI], and its ratio
                    to best-of-8's aggregate IQM
  P                 the aggregate probability of improvement over
                    best-of-8 [95 % CI]
  frames            the frames the row's populations trained, summed over
                    them, over the frames of their best-of-8 groups
  beats             IQM higher on at least 2 of 3 environments, and P at
                    least 0.6 with a CI lower bound above 0.5
  matches for less  aggregate IQM at least 0.98 of best-of-8's, a P
                    interval that contains 0.5, and frames at most 0.65

No verdict is printed until every row has a judged run on every
environment and population seed (3 x 5).

The table's first line names the policy the judge.json files judged
(policy-best, or policy-final: the weights the picks were selected on).

  scripts/population-verdict.py [--policy NAME] [--runs N] [OUT [CMP]]
      OUT default results/population-decide, CMP (the comparison's folder
      in OUT) default compare-8
      --policy NAME  refuse unless every judge.json in CMP judged NAME
                     (policy-final or policy-best)
      --runs N       the judged runs a row needs for a verdict (default 15,
                     3 environments x 5 seeds; a dry run's tiny study has
                     fewer)
  HYPERCTL: the binary that reports (default bin/hyperctl, built by `make`)

The re-judged comparison (every pick's policy-final, scripts/population-
rejudge.sh) is read by
  scripts/population-verdict.py --policy policy-final results/population-decide compare-8-final
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

REF = "fixed-best8"
RUNS = 3 * 5  # environments x population seeds


def report(cmp):
    binary = os.environ.get("HYPERCTL", "bin/hyperctl")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([binary, "--log-format", "json", "report", cmp, "--score", "judge", "--reference", REF,
                              "--format", "json", "--out", tmp], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"population-verdict: {binary} report {cmp}: exit {out.returncode}\n{out.stderr}")
        return json.loads(out.stdout)


def frames(path):
    """{row: (frames used, frames of the best-of-8 groups)}, summed."""
    sums = {}
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            used, fixed = sums.get(r["row"], (0, 0))
            sums[r["row"]] = (used + int(r["frames_used"]), fixed + int(r["frames_fixed"]))
    return sums


def judged_policies(cmp):
    """{policy name: judge.json files} over CMP's runs (CMP/<env>/<row>/seed<S>)."""
    names = {}
    for root, _, files in os.walk(cmp):
        if "judge.json" in files and not os.path.relpath(root, cmp).startswith("report"):
            with open(os.path.join(root, "judge.json")) as f:
                names.setdefault(json.load(f).get("policy", "policy-best"), []).append(root)
    return names


def fmt(ci):
    return "–" if ci["point"] is None else "{:.2f} [{:.2f}, {:.2f}]".format(ci["point"], ci["lo"], ci["hi"])


def parse(argv):
    """(OUT, CMP, policy or None, runs) from the command line."""
    args, want, runs = list(argv[1:]), None, RUNS
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag in ("--policy", "--runs") and args:
            value = args.pop(0)
            if flag == "--policy":
                if value not in ("policy-final", "policy-best"):
                    sys.exit(f"population-verdict: --policy {value}: want policy-final or policy-best")
                want = value
            else:
                try:
                    runs = int(value)
                except ValueError:
                    runs = 0
                if runs < 1:
                    sys.exit(f"population-verdict: --runs {value}: want a count of runs >= 1")
        else:
            sys.exit(__doc__)
    if len(args) > 2:
        sys.exit(__doc__)
    out = args[0] if args else "results/population-decide"
    return out, f"{out}/{args[1] if len(args) > 1 else 'compare-8'}", want, runs


def main(argv):
    out, cmp, want, runs = parse(argv)
    policies = judged_policies(cmp)
    if want is not None and set(policies) - {want}:
        other = sorted(set(policies) - {want})
        sys.exit(f"population-verdict: {cmp}: --policy {want}, but {len(policies[other[0]])} judge.json judged {other[0]}, e.g. {policies[other[0]][0]}")
    rep = report(cmp)
    used = frames(f"{cmp}/frames.tsv")
    agg = {a["controller"]: a for a in rep["aggregate"]}
    per_env = {}
    for e in rep["envs"]:
        for c in e["controllers"]:
            per_env.setdefault(c["controller"], {})[e["env"]] = c
    if REF not in agg:
        sys.exit(f"population-verdict: {cmp}: no {REF} row")
    envs = sorted(per_env[REF])
    judged = " and ".join(sorted(policies)) or "no policy"
    print(f"Judged on fresh episodes: {cmp}, {judged} of every pick (scores normalised per environment, 1 = {REF}'s IQM).\n")
    print("| row | runs | " + " | ".join(f"{e} IQM (vs {REF})" for e in envs) +
          f" | aggregate IQM [95 % CI] | of {REF}'s | P(> {REF}) [95 % CI] | frames of {REF}'s | beats | matches for less |")
    print("|---|---|" + "---|" * len(envs) + "---|---|---|---|---|---|")
    short = []
    verdicts = []
    for row, a in agg.items():
        if row == REF:
            continue
        if a["runs"] != runs:
            short.append(f"{row} ({a['runs']} of {runs})")
        cells, higher = [], 0
        for e in envs:
            mine, ref = per_env.get(row, {}).get(e), per_env[REF][e]
            if mine is None or mine["iqm_at_budget"]["point"] is None:
                cells.append("–")
                continue
            m, r = mine["iqm_at_budget"]["point"], ref["iqm_at_budget"]["point"]
            higher += m > r
            cells.append(f"{m:.2f} ({r:.2f})")
        iqm, p = a["normalised_iqm"], a["p_over_reference"]
        ratio = iqm["point"] / agg[REF]["normalised_iqm"]["point"]
        u, f = used.get(row, (0, 0))
        share = u / f if f else float("nan")
        beats = higher >= 2 and p["point"] is not None and p["point"] >= 0.6 and p["lo"] > 0.5
        matches = ratio >= 0.98 and p["point"] is not None and p["lo"] <= 0.5 <= p["hi"] and share <= 0.65
        print(f"| {row} | {a['runs']} | " + " | ".join(cells) +
              f" | {fmt(iqm)} | {ratio:.3f} | {fmt(p)} | {share:.3f} | {'yes' if beats else 'no'} ({higher} of {len(envs)} higher) | {'yes' if matches else 'no'} |")
        verdicts.append((row, beats, matches))
    print()
    if short:
        print("No verdict yet: every row needs a judged run on every environment and seed; short:", ", ".join(short))
        return 0
    for row, beats, matches in verdicts:
        print(f"{row}: {'beats' if beats else 'does not beat'} {REF}; {'matches it for less' if matches else 'does not match it for less'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
