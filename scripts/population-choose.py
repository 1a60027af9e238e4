#!/usr/bin/python3
"""population-choose.py: issue 36's choice of the deciding study's two tuned
rows, by the README's rule: of the anti-greedy PBT/PB2 variants (tuned on
population seeds 0-2) and of the successive-halving variants (seeds 0-4),
the one with the highest aggregate IQM of the judged score.

It reads the aggregate table of each group's judged report, written by
scripts/population-tune.sh (population-compare.sh with CMP):
results/population-tune/compare-antigreedy-8/report-judge/report.md and
results/population-tune/compare-halving-8/report-judge/report.md. It
prints each candidate's IQM with its CI and runs, then the two chosen
names as CHOSEN for scripts/population-decide.sh. IQMs are compared as the
report prints them (two decimals); a tie goes to the earlier name of
GROUPS. A candidate with fewer judged runs than its seeds times 3
environments is listed as unfinished, and no choice is printed until every
candidate of a group is finished. Exit status 0 only with both choices.

  scripts/population-choose.py [OUT]     (default results/population-tune)
"""
import re
import sys

GROUPS = {  # group: (its comparison folder, its seeds, its variants' rows)
    "anti-greedy PBT/PB2": ("compare-antigreedy-8", 3, ["pbt-late-8", "pb2-late-8", "pbt-ttest-8"]),
    "successive halving": ("compare-halving-8", 5, ["halving3-same-8", "halving3-8", "halving2-same-8"]),
}


def aggregate(path):
    """Returns {row: (runs, iqm, lo, hi)} from the report's aggregate table."""
    rows, inside = {}, False
    with open(path) as f:
        for line in f:
            if line.startswith("### Aggregate over environments"):
                inside = True
            elif inside and line.startswith("#"):
                break
            elif inside and line.startswith("| ") and not line.startswith("| controller"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                m = re.match(r"(-?[0-9.]+) \[(-?[0-9.]+), (-?[0-9.]+)\]", cells[3])
                if m:
                    rows[cells[0]] = (int(cells[1]), *map(float, m.groups()))
    return rows


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "results/population-tune"
    chosen = []
    for group, (cmp, seeds, names) in GROUPS.items():
        path = f"{out}/{cmp}/report-judge/report.md"
        try:
            rows = aggregate(path)
        except FileNotFoundError:
            print(f"{group}: {path}: missing (scripts/population-tune.sh writes it at the end)")
            continue
        need = 3 * seeds
        print(f"{group} ({path}):")
        done = True
        for n in names:
            if n not in rows:
                print(f"  {n}: no judged runs")
                done = False
                continue
            runs, iqm, lo, hi = rows[n]
            state = "" if runs >= need else f"  (unfinished: {runs} of {need} runs)"
            done = done and runs >= need
            print(f"  {n}: IQM {iqm:.2f} [{lo:.2f}, {hi:.2f}], {runs} runs{state}")
        if done:
            best = max(names, key=lambda n: rows[n][1])
            print(f"  chosen: {best}")
            chosen.append(best.removesuffix("-8"))
        else:
            print("  no choice yet: a candidate is unfinished")
    if len(chosen) == len(GROUPS):
        print("CHOSEN=" + ",".join(chosen))
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
