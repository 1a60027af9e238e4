#!/usr/bin/python3
"""population-lineage.py: trains one member of a finished population again,
and only its lineage, with the binary that trained the population.

A member's weights at the end are one line of segments: in each generation
g it trained as some member m_g, and where the step after generation g-1
made m_g copy a donor (an exploit in the population log), the line goes on
from that donor. Its train.csv, eval.csv and policy files are that line's
(a copy carries the donor's whole run folder). So the member is trained
again by training m_0 … m_G-1, one generation each, in a new folder NEW:

  1. NEW gets the population's definition (population.json);
  2. for g = 0 … G-1: NEW gets plan g and the step after generation g-1
     (the committed ones, so every decision is the population's own; a
     member reads the steps back to find from where its configuration has
     been in force) and the population log's lines of the generations
     before g, the folder of m_g becomes a copy of m_(g-1)'s
     where the step copied it (as the binary's CopyRun: every file but the
     folder's lock, log and Slurm record), and BINARY population member
     --out NEW --generation g --member m_g --threads 1 trains it, with the
     environment of the population's own member processes (one thread, the
     float kernels of docs/guarantees.md).

That trains 1/size of the population's frames. Runs here are deterministic,
so the member's train.csv and eval.csv in NEW must equal the committed ones;
the caller checks that (scripts/population-compare.sh, RETRAIN_POPS=1) and
only then uses its policy. Resumable: NEW/lineage.json records the last
generation done; run it again to continue.

  scripts/population-lineage.py POP MEMBER NEW BINARY
    POP     a finished population folder (result.json)
    MEMBER  the member's folder in it, as result.json names it
            (e.g. pusher/pbt/seed3)
    NEW     an empty or new folder (or one this script began)
    BINARY  the hyperctl that trained POP
"""
import json
import os
import shutil
import subprocess
import sys


def lineage(pop, member):
    """[m_0, ..., m_G-1]: the member each generation of member's line trained as."""
    with open(os.path.join(pop, "result.json")) as f:
        res = json.load(f)
    dirs = [m["dir"] for m in res["members"]]
    if member not in dirs:
        sys.exit(f"population-lineage: {pop}: no member {member} (result.json has {', '.join(dirs)})")
    plans = sorted(p for p in os.listdir(os.path.join(pop, "generations")) if p.startswith("plan-"))
    generations = len(plans)
    donor = {}  # (generation, member) -> the member it copied in the step after that generation
    with open(os.path.join(pop, "population.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("event") == "exploit":
                donor[(r["generation"], r["member"])] = r["from"]
    path = [dirs.index(member)]
    for g in range(generations - 2, -1, -1):  # the step after generation g
        path.append(donor.get((g, path[-1]), path[-1]))
    path.reverse()
    return path, dirs


def copy_run(src, dst):
    """dst becomes a copy of the run in src, as the binary's CopyRun makes it:
    every file but hidden ones (the lock, temporary files), the folder's log
    and a Slurm task's record."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".*", "train.log", "slurm-task.txt"))


def write_log_prefix(src, dst, g):
    """dst becomes the lines of the population log src (byte for byte,
    seals included) of the generations before g: the records the steps
    before generation g wrote."""
    keep = []
    with open(src, "rb") as f:
        for line in f:
            if json.loads(line)["generation"] >= g:
                break
            keep.append(line)
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.writelines(keep)
    os.replace(tmp, dst)


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    pop, member, new, binary = argv[1:]
    path, dirs = lineage(pop, member)
    with open(os.path.join(pop, "population.json")) as f:
        if json.load(f).get("receiver_random"):
            # A receiver that keeps its own random state is its own
            # checkpoint and config grafted onto the donor's copy; a plain
            # copy of the donor's folder would train another run.
            sys.exit(f"population-lineage: {pop}: receiver_random is set: its receivers keep their own random state, which this script does not restore")
    os.makedirs(os.path.join(new, "generations"), exist_ok=True)
    shutil.copyfile(os.path.join(pop, "population.json"), os.path.join(new, "population.json"))
    state = os.path.join(new, "lineage.json")
    done = -1
    if os.path.exists(state):
        with open(state) as f:
            s = json.load(f)
        if s["path"] != path:
            sys.exit(f"population-lineage: {new} holds another lineage ({s['path']}, this one {path}); use a new folder")
        done = s["done"]
    env = dict(os.environ, GOMAXPROCS="1", OMP_NUM_THREADS="1")
    env.setdefault("OPENBLAS_CORETYPE", "Haswell")
    env.setdefault("ATEN_CPU_CAPABILITY", "avx2")
    for g, k in enumerate(path):
        if g <= done:
            continue
        # Plan g, and the steps before it: a member reads the steps back
        # to the start of its configuration (the resume it may make exactly).
        names = [f"plan-{g:04d}.json"] + ([f"step-{g - 1:04d}.json"] if g > 0 else [])
        for name in names:
            shutil.copyfile(os.path.join(pop, "generations", name), os.path.join(new, "generations", name))
        # The population log as it stood when generation g began: the
        # committed lines of the steps before it (a binary that checks the
        # log against the steps finds them there; an older one ignores it).
        write_log_prefix(os.path.join(pop, "population.jsonl"), os.path.join(new, "population.jsonl"), g)
        if g > 0 and path[g - 1] != k:
            copy_run(os.path.join(new, dirs[path[g - 1]]), os.path.join(new, dirs[k]))
        folder = os.path.join(new, dirs[k])
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "train.log"), "ab") as log:
            cmd = ["nice", "-n", "19", binary, "--log-format", "json", "population", "member", "--out", new,
                   "--generation", str(g), "--member", str(k), "--threads", "1"]
            if subprocess.run(cmd, stdout=log, stderr=log, env=env).returncode != 0:
                sys.exit(f"population-lineage: {' '.join(cmd)} failed; see {folder}/train.log")
        tmp = state + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"pop": pop, "member": member, "path": path, "done": g}, f)
        os.replace(tmp, state)
    print(f"population-lineage: {member} of {pop} trained again in {new}/{member} along members {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
