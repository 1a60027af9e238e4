#!/usr/bin/python3
"""population-picks.py: every pick of a finished population study, and the
run folder each one selected, for retraining and judging the selected
policy (scripts/population-rejudge.sh).

A study made by scripts/population-study.sh and compared by
scripts/population-compare.sh (and scripts/population-advice.sh) holds
copies of its picks in STUDY/compare-8 (and STUDY/advice-8), without
saying which run each copy came from. This finds it again by the same
rules those scripts pick by:

  fixed-best8   the best of fixed seeds 8S ... 8S+7 by final evaluation
                (the first of equal ones), for population seed S
  fixed-1       fixed seed 8S (advice-8 only)
  fixed-best4   the best of fixed seeds 8S ... 8S+3 (advice-8 only)
  <method>-8    the population's best member (its result.json's "best")

and checks each against its copy: the copy's summary.json must be the
source's, byte for byte, or it stops with the difference.

It prints one tab-separated line per pick (a header first):

  row env seed run pop member build frames

  run     the picked run folder (a member's folder inside its population)
  pop     the population folder, or - for a fixed run
  member  the member's folder in pop, as result.json names it, or -
  build   the commit of the binary that trained it: build.txt of the study
          folder that holds it (STUDY for the fixed runs, the parent of a
          pop/ folder for populations)
  frames  the frames it trained (its summary.json): retraining it trains
          these again (a member along its lineage, one run's frames)

  scripts/population-picks.py STUDY [ROW=POPFOLDER ...]
    STUDY      e.g. results/population-decide
    ROW=POPFOLDER  where a population row's populations live when not in
               STUDY/pop, e.g. mfpbt-8=results/population-decide/mfpbt/pop
               (default: that one, when the folder exists)
"""
import json
import os
import sys

SIZE = 8


def load(path):
    with open(path) as f:
        return json.load(f)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def best_of(runs):
    """The run with the highest final_eval_return, the first of equal ones
    (population-compare.sh replaces its pick only on a strictly higher one)."""
    best, value = None, None
    for r in runs:
        v = load(os.path.join(r, "summary.json")).get("final_eval_return")
        if v is not None and (value is None or v > value):
            best, value = r, v
    if best is None:
        sys.exit(f"population-picks: none of {', '.join(runs)} has a final evaluation")
    return best


def build_of(folder):
    path = os.path.join(folder, "build.txt")
    try:
        return read(path).decode().strip()
    except OSError as e:
        sys.exit(f"population-picks: {path}: {e.strerror}; the binary that trained {folder} is unknown")


def check_copy(src, copy):
    """src's summary.json must be copy's: the rule found the copy's source."""
    a, b = os.path.join(src, "summary.json"), os.path.join(copy, "summary.json")
    if not os.path.exists(b):
        sys.exit(f"population-picks: {b}: missing; the comparison is not whole")
    if read(a) != read(b):
        sys.exit(f"population-picks: {a} is not {b}: the pick's rule found another run than the comparison copied")


def picks(study, pops):
    cmp = os.path.join(study, f"compare-{SIZE}")
    adv = os.path.join(study, f"advice-{SIZE}")
    spec = load(os.path.join(cmp, "compare.json"))
    fixed_root = os.path.join(study, "fixed")
    out = []
    for env in spec["envs"]:
        for s in spec["seeds"]:
            fixed = [os.path.join(fixed_root, env, "fixed", f"seed{SIZE * s + k}") for k in range(SIZE)]
            chosen = [("fixed-best8", cmp, best_of(fixed))]
            if os.path.isdir(adv):
                chosen += [("fixed-1", adv, fixed[0]), ("fixed-best4", adv, best_of(fixed[:4]))]
            for row, where, run in chosen:
                check_copy(run, os.path.join(where, env, row, f"seed{s}"))
                out.append((row, env, s, run, "-", "-", build_of(study)))
            for row in spec["controllers"]:
                if row.startswith("fixed-"):
                    continue
                root = pops.get(row, os.path.join(study, "pop"))
                pop = os.path.join(root, env, row, f"seed{s}")
                res = load(os.path.join(pop, "result.json"))
                member = res["members"][res["best"]]["dir"]
                run = os.path.join(pop, member)
                check_copy(run, os.path.join(cmp, env, row, f"seed{s}"))
                out.append((row, env, s, run, pop, member, build_of(os.path.dirname(os.path.normpath(root)))))
    return out


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    study = argv[1].rstrip("/")
    pops = {}
    default = os.path.join(study, "mfpbt", "pop")
    if os.path.isdir(default):
        pops[f"mfpbt-{SIZE}"] = default
    for kv in argv[2:]:
        row, sep, folder = kv.partition("=")
        if not sep:
            sys.exit(f"population-picks: {kv}: want ROW=POPFOLDER")
        pops[row] = folder.rstrip("/")
    print("row\tenv\tseed\trun\tpop\tmember\tbuild\tframes")
    for row, env, s, run, pop, member, build in picks(study, pops):
        frames = load(os.path.join(run, "summary.json"))["frames"]
        print(f"{row}\t{env}\t{s}\t{run}\t{pop}\t{member}\t{build}\t{frames}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
