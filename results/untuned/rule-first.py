#!/usr/bin/python3
"""rule-first.py: proves that the untuned-environments study's rule came
before its runs, and that one binary trained them all.

  1. The rule's commit: the first commit that added this folder's
     README.md (it states the rule and the rows) and
     scripts/untuned-verdict.py (which applies it); its committer time.
  2. Every run below single/ and pop/ (each folder with a train.log):
     the time of its first log line, the moment it started. Each must be
     later than the rule's commit, and a population's (pop/) also later
     than the commit that added amendment-1.md (the amendment made before
     any population run).
  3. Every finished run (summary.json) records the study's binary:
     hyperctl_version equal to the commit in build.txt (the pinned
     binary is built with that version: scripts/pinned-binary.sh).

Prints the counts, the earliest start and every violation; exit 1 on any
violation, 0 otherwise.

  results/untuned/rule-first.py          (from the repository's root)
"""
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RULE_FILES = ["README.md", "../../scripts/untuned-verdict.py"]
POP_AMENDMENTS = ["amendment-1.md"]


def git(*args):
    return subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True, check=True).stdout.strip()


def added(path):
    """The committer time of the first commit that added path."""
    out = git("log", "--diff-filter=A", "--format=%H %cI", "--", path).splitlines()
    if not out:
        sys.exit(f"rule-first: {path} was never committed")
    sha, when = out[-1].split(" ", 1)
    return sha, datetime.datetime.fromisoformat(when)


def first_time(log):
    with open(log) as f:
        line = f.readline()
    t = json.loads(line)["time"]
    return datetime.datetime.fromisoformat(t.replace("Z", "+00:00"))


def main():
    rules = [added(p) for p in RULE_FILES]
    sha, rule_time = max(rules, key=lambda r: r[1])
    build = open(os.path.join(HERE, "build.txt")).read().strip() if os.path.exists(os.path.join(HERE, "build.txt")) else None
    print(f"rule: committed in {sha[:12]} at {rule_time.isoformat()} (the later of {', '.join(RULE_FILES)})")
    pop_time = rule_time
    for a in POP_AMENDMENTS:
        a_sha, a_time = added(a)
        print(f"{a}: committed in {a_sha[:12]} at {a_time.isoformat()} (population runs must start after it)")
        pop_time = max(pop_time, a_time)
    print(f"binary: {build or 'none yet (no build.txt)'}")
    runs, finished, bad = 0, 0, []
    earliest = None
    for part in ("single", "pop"):
        for root, _, files in os.walk(os.path.join(HERE, part)):
            if "train.log" not in files:
                continue
            runs += 1
            rel = os.path.relpath(root, HERE)
            try:
                start = first_time(os.path.join(root, "train.log"))
            except (OSError, ValueError, KeyError) as e:
                bad.append(f"{rel}: train.log has no start time ({e})")
                continue
            earliest = start if earliest is None or start < earliest else earliest
            if start <= rule_time:
                bad.append(f"{rel}: started {start.isoformat()}, not after the rule")
            elif part == "pop" and start <= pop_time:
                bad.append(f"{rel}: started {start.isoformat()}, not after the population rule's amendment")
            if "summary.json" in files:
                finished += 1
                v = json.load(open(os.path.join(root, "summary.json"))).get("hyperctl_version")
                if build is None or v != build:
                    bad.append(f"{rel}: summary.json hyperctl_version {v!r}, want {build!r}")
    print(f"runs: {runs} started, {finished} finished; earliest start {earliest.isoformat() if earliest else '–'}")
    for b in bad:
        print("violation:", b)
    print("ok: every run started after the rule and every finished run records the study's binary" if not bad
          else f"{len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
