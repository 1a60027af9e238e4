#!/usr/bin/python3
"""population-busy.py: how busy a population's --jobs slots were.

For a population folder: its wall time (population.json's mtime to
result.json's) and the training time of its members (the wall_time_s
column of train.csv: each member's own training, row by row, whatever
process ran it), so busy = training / (jobs × wall) says how much of the
slots' time went into training rather than process starts, resumes, steps
and the barrier at every ready point. For a compare folder of `fixed`
runs: the same from their summary.json and the mtimes of compare.json and
the newest summary.json.

With --sitting OUT (a folder of scripts/population-overhead.sh, holding
fixed-R and pop-R, pop-METHOD-R or before-R for each repeat R) it also prints, per
repeat, the work-normalised ratio busy(fixed) / busy(population): the
population's wall time over its N fixed runs' had both trained for the same
time (the members' tuned hyperparameters and the machine's load change how
long the same frames take), and the medians.

With a population's debug log (--log-level debug --log-format json; in a
sitting OUT/logs/STEM-R.jsonl) it also splits the slots' time (jobs × wall)
into: the members' training rows; the rest of their requests (a worker's
resume from the checkpoint, the pause that writes it, the request's round
trip); the barrier (slots idle in a generation while its last members
train); the steps between generations (every slot idle); and the rest
(setup, the sealed files' check, the finish, the workers' starts).

Usage: scripts/population-busy.py JOBS FOLDER...
       scripts/population-busy.py JOBS --sitting OUT
"""
import csv
import glob
import json
import os
import statistics
import sys

def busy(d, jobs):
    """(wall, training, busy) of a population or compare folder d."""
    if os.path.exists(os.path.join(d, "population.json")):
        wall = os.path.getmtime(os.path.join(d, "result.json")) - os.path.getmtime(os.path.join(d, "population.json"))
        train = 0.0
        for m in glob.glob(os.path.join(d, "*", "*", "seed*", "train.csv")):
            prev = 0.0
            for r in csv.DictReader(open(m, newline="")):
                w = float(r["wall_time_s"])
                # wall_time_s runs on along a lineage; after an exploit the
                # rows before it are the donor's, which stand in for the
                # member's own (both trained the same generations).
                train += w - prev if w >= prev else 0.0
                prev = w
    else:
        sums = glob.glob(os.path.join(d, "*", "*", "seed*", "summary.json"))
        wall = max(os.path.getmtime(s) for s in sums) - os.path.getmtime(os.path.join(d, "compare.json"))
        train = sum(json.load(open(s))["wall_time_s"] for s in sums)
    return wall, train, train / (jobs * wall)


def split(d, log, jobs):
    """The shares of jobs × wall of population d, from its debug log."""
    wall, train, _ = busy(d, jobs)
    members = idle = step = 0.0
    for line in open(log):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        msg = e.get("message", "")
        if msg == "population: generation trained":
            members += e["members_s"]
            idle += e["idle_s"]
        elif msg == "population: step taken":
            step += e["step_s"] * jobs
    slots = jobs * wall
    parts = [("training", train), ("requests", members - train), ("barrier", idle),
             ("steps", step), ("rest", slots - members - idle - step)]
    return "\t".join(f"{n} {v / slots:.3f}" for n, v in parts) + f"\t(of {slots:.1f} slot-s)"


jobs = int(sys.argv[1])
if sys.argv[2] == "--sitting":
    out = sys.argv[3]
    # Folders are STEM-R: fixed-R, and pop-R, before-R or pop-METHOD-R.
    stems = sorted({os.path.basename(p).rsplit("-", 1)[0] for p in glob.glob(os.path.join(out, "*-*"))} - {"fixed"})
    print("repeat\t" + "\t".join(f"busy_{s}\tnormalised_ratio_{s}" for s in stems) + "\tbusy_fixed")
    ratio = {s: [] for s in stems}
    for r in sorted(int(p.rsplit("-", 1)[1]) for p in glob.glob(os.path.join(out, "fixed-*"))):
        bf = busy(os.path.join(out, f"fixed-{r}"), jobs)[2]
        line = f"{r}"
        for s in stems:
            d = os.path.join(out, f"{s}-{r}")
            if not os.path.exists(d):
                line += "\t-\t-"
                continue
            bp = busy(d, jobs)[2]
            ratio[s].append(bf / bp)
            line += f"\t{bp:.3f}\t{bf / bp:.3f}"
        print(line + f"\t{bf:.3f}")
    for s in stems:
        xs = ratio[s]
        if xs:
            print(f"# median normalised ratio {s} / fixed: {statistics.median(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f}, {len(xs)} repeats)")
    for log in sorted(glob.glob(os.path.join(out, "logs", "*.jsonl"))):
        stem = os.path.basename(log)[: -len(".jsonl")]
        d = os.path.join(out, stem)
        if os.path.exists(os.path.join(d, "result.json")):
            print(f"# split {stem}: {split(d, log, jobs)}")
    sys.exit(0)
for d in sys.argv[2:]:
    wall, train, b = busy(d, jobs)
    print(f"{d}\twall {wall:.1f} s\ttraining {train:.1f} s\tbusy {b:.2f}")
