#!/usr/bin/python3
"""untuned-verdict.py: the rule of the untuned-environments study
(results/untuned/README.md, "The rule"), applied to its finished runs.

It assembles two comparison folders of copies (train.csv, eval.csv,
summary.json, config.toml, judge.json) and reports on them with
`hyperctl report --format json`:

  OUT/compare-single   the single-run rows, seeds 0-9; the score is the
                       final evaluation (the evaluation at the 1M-frame
                       budget); reference fixed
  OUT/compare-pop      each population's pick (result.json's best member)
                       and best-of-8 fixed (fixed seeds 8S...8S+7, the
                       highest final evaluation), plus best-of-N for every
                       row that trains at most 65 % of best-of-8's frames
                       (N = its frames / (15 * 1M), rounded); the score is
                       the judged mean (policy-final on 50 fresh episodes);
                       reference fixed-best8, and fixed-best<N> for the
                       match's second test

Then it prints the goals (met or not, with CIs) and each row beside RL
Zoo's tuned 1M score, and writes the same to OUT/verdict.md. No verdict is
printed for a goal until every row it needs is complete (3 environments x
10 seeds, or x 5 population seeds).

Once a comparison folder is complete, its committed reports (the rows of
results/reports.tsv that read it: report.md and figures, beside RL Zoo's
scores with --published rl-zoo) are written by scripts/reports.sh with this
checkout's hyperctl (the study's binary predates --published), and its
statistics are checked against the study's binary's: every IQM and P, per
environment and aggregated, must be the same numbers, or the script stops.

  scripts/untuned-verdict.py [OUT]          OUT default results/untuned
  HYPERCTL: the binary that decides (default: the study's,
  bin/hyperctl-untuned-<build.txt>); REPORT_HYPERCTL: the binary that
  writes the committed reports (default: scripts/reports.sh builds
  bin/hyperctl from this checkout)
"""
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib

ENVS = os.environ.get("ENVS", "hopper ant swimmer").split()  # ENVS: only for a dry check
SEEDS = list(range(10))
POP_SEEDS = list(range(5))
SINGLE_ROWS = ["fixed", "hoof", "hoof@seven-keys", "hypercontroller@hc-narrow", "kladaptive", "pb2@seven-keys"]
POP_ROWS = ["pbt-late", "halving3", "halving3-same", "random"]
SIZE = 8
FRAMES = 1_000_000
RL_ZOO = {"hopper": 2410, "ant": 1327, "swimmer": 282}  # tuned PPO at 1M steps (anchors.md)
FILES = ["train.csv", "eval.csv", "summary.json", "config.toml", "judge.json"]


def load(path):
    with open(path) as f:
        return json.load(f)


def take(src, dst):
    """Copies the files report reads from run folder src into dst."""
    os.makedirs(dst, exist_ok=True)
    for f in FILES:
        if os.path.exists(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), os.path.join(dst, f))


def final_eval(run):
    return load(os.path.join(run, "summary.json")).get("final_eval_return")


def finished(run, judged=False):
    return os.path.exists(os.path.join(run, "summary.json")) and (not judged or os.path.exists(os.path.join(run, "judge.json")))


def manifest(folder, rows, seeds):
    with open(os.path.join(folder, "compare.json"), "w") as f:
        json.dump({"envs": ENVS, "controllers": rows, "seeds": seeds, "iterations": 1000, "frames": FRAMES,
                   "command": "scripts/untuned-verdict.py"}, f, indent=2)


@functools.lru_cache(maxsize=None)
def report_json(binary, folder, reference, judge):
    """The report's JSON tables of folder, by binary (once per process: a
    folder is assembled before it is reported)."""
    args = [binary, "--log-format", "json", "report", folder, "--reference", reference, "--focus", reference, "--format", "json"]
    if judge:
        args += ["--score", "judge"]
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(args + ["--out", tmp], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"untuned-verdict: {' '.join(args)}: exit {out.returncode}\n{out.stderr}")
    return json.loads(out.stdout)


def statistics(rep):
    """What decides: every row's aggregate IQM and P, and its IQM and P on
    every environment."""
    stats = {("aggregate", a["controller"]): (a["normalised_iqm"], a["p_over_reference"]) for a in rep["aggregate"]}
    for e in rep["envs"]:
        for c in e["controllers"]:
            stats[(e["env"], c["controller"])] = (c["iqm_at_budget"], c["p_over_reference"])
    return stats


def kept_reports(folder, reference):
    """Writes the committed reports of folder (results/reports.tsv's rows
    that read it) with REPORT_HYPERCTL or this checkout's hyperctl, once
    that binary's statistics are checked to equal the study's binary's."""
    rows = []
    with open("results/reports.tsv") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) == 3 and not line.startswith("#") and os.path.normpath(cols[0]) == os.path.normpath(folder):
                rows.append(cols[1])
    if not rows:
        return
    env = dict(os.environ)
    env.pop("HYPERCTL", None)
    if os.environ.get("REPORT_HYPERCTL"):
        env["HYPERCTL"] = os.environ["REPORT_HYPERCTL"]
    else:
        subprocess.run(["go", "build", "-o", "bin/hyperctl", "./cmd/hyperctl"], check=True)
        env["HYPERCTL"] = "bin/hyperctl"
    for judge in (False, True):
        a = statistics(report_json(study_binary(), folder, reference, judge))
        b = statistics(report_json(env["HYPERCTL"], folder, reference, judge))
        if a != b:
            diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            sys.exit(f"untuned-verdict: {folder}: {env['HYPERCTL']}'s statistics differ from the study's binary's ({'judge' if judge else 'budget'} score): {diff[:5]}")
    subprocess.run(["scripts/reports.sh"] + rows, env=env, check=True)


def study_binary():
    return os.environ.get("HYPERCTL") or f"bin/hyperctl-untuned-{open(os.path.join(OUT, 'build.txt')).read().strip()}"


def report(folder, reference, judge):
    rep = report_json(study_binary(), folder, reference, judge)
    agg = {a["controller"]: a for a in rep["aggregate"]}
    env = {}
    for e in rep["envs"]:
        for c in e["controllers"]:
            env.setdefault(c["controller"], {})[e["env"]] = c
    return agg, env


def ci(c):
    return "–" if c is None or c.get("point") is None else f"{c['point']:.2f} [{c['lo']:.2f}, {c['hi']:.2f}]"


def beats(p):
    return p is not None and p.get("point") is not None and p["point"] >= 0.6 and p["lo"] > 0.5


def single(lines):
    cmp = os.path.join(OUT, "compare-single")
    shutil.rmtree(cmp, ignore_errors=True)
    short = []
    for env in ENVS:
        for row in SINGLE_ROWS:
            for s in SEEDS:
                run = os.path.join(OUT, "single", env, row, f"seed{s}")
                if finished(run, judged=True):
                    take(run, os.path.join(cmp, env, row, f"seed{s}"))
                else:
                    short.append(f"{env}/{row}/seed{s}")
    if len(short) == len(ENVS) * len(SINGLE_ROWS) * len(SEEDS):
        lines.append("Single runs: none finished yet.\n")
        return
    manifest(cmp, SINGLE_ROWS, SEEDS)
    agg, env = report(cmp, "fixed", judge=False)
    _, jenv = report(cmp, "fixed", judge=True)
    lines.append("## Single runs (seeds 0–9; score: the final 10-episode evaluation; 1 = `fixed`'s IQM)\n")
    lines.append("| row | runs | " + " | ".join(f"{e} IQM [95 % CI] (judged)" for e in ENVS) +
                 " | aggregate IQM [95 % CI] | P(> fixed) [95 % CI] | goal 1 |")
    lines.append("|---|---|" + "---|" * len(ENVS) + "---|---|---|")
    met = []
    for row in SINGLE_ROWS:
        a = agg.get(row)
        if a is None:
            continue
        cells = []
        for e in ENVS:
            c, j = env.get(row, {}).get(e), jenv.get(row, {}).get(e)
            judged = "" if j is None else f" ({j['iqm_at_budget']['point']:.1f})"
            cells.append(("–" if c is None else ci(c["iqm_at_budget"])) + judged)
        iqm, p = a["normalised_iqm"], a.get("p_over_reference")
        goal = row != "fixed" and iqm["point"] is not None and iqm["point"] >= 1.05 and beats(p)
        if goal:
            met.append(row)
        lines.append(f"| {row} | {a['runs']} | " + " | ".join(cells) + f" | {ci(iqm)} | {ci(p) if row != 'fixed' else '–'} | "
                     + ("–" if row == "fixed" else goal_cell(goal, short)) + " |")
    lines.append("")
    lines.append("RL Zoo's tuned PPO at 1M steps: " + ", ".join(f"{e} {RL_ZOO[e]}" for e in ENVS) + ".\n")
    if short:
        lines.append(f"**No verdict yet for goal 1**: {len(short)} of {len(ENVS) * len(SINGLE_ROWS) * len(SEEDS)} runs not finished and judged.\n")
    else:
        lines.append(f"**Goal 1 (single run): {'met by ' + ', '.join(met) if met else 'not met'}.**\n")
        kept_reports(cmp, "fixed")
    swimmer_goal(lines, "single run", {r: env.get(r, {}).get("swimmer") for r in SINGLE_ROWS}, bool(short))


def goal_cell(goal, short):
    """A row's goal column: no verdict while runs are short."""
    return "pending" if short else "met" if goal else "not met"


def swimmer_goal(lines, what, cells, incomplete):
    reached = [r for r, c in cells.items() if c and c["iqm_at_budget"]["point"] is not None
               and c["iqm_at_budget"]["point"] >= RL_ZOO["swimmer"]]
    state = "no verdict yet" if incomplete and not reached else ("reached by " + ", ".join(reached) if reached else "not reached")
    lines.append(f"Goal 3 ({what} rows, Swimmer IQM ≥ {RL_ZOO['swimmer']}): {state}.\n")


def max_batch():
    """The search space's largest batch size (configs/population.toml):
    by how much a member's last iteration may pass its frame budget."""
    with open(os.path.join(OUT, "configs", "population.toml"), "rb") as f:
        space = tomllib.load(f)
    return int(max(k["high"] for k in space["controller"]["tune"] if k["name"] == "batch_size"))


def best_fixed(env, s, n):
    """The best of fixed seeds 8s ... 8s+n-1 by final evaluation, or None."""
    best, bv = None, None
    for k in range(n):
        run = os.path.join(OUT, "single", env, "fixed", f"seed{SIZE * s + k}")
        if not finished(run, judged=True):
            return None
        v = final_eval(run)
        if v is not None and (bv is None or v > bv):
            best, bv = run, v
    return best


def populations(lines):
    cmp = os.path.join(OUT, "compare-pop")
    shutil.rmtree(cmp, ignore_errors=True)
    short, used = [], {}
    for env in ENVS:
        for s in POP_SEEDS:
            for row in POP_ROWS:
                pop = os.path.join(OUT, "pop", env, f"{row}-{SIZE}", f"seed{s}")
                if not os.path.exists(os.path.join(pop, "result.json")):
                    short.append(f"{env}/{row}/seed{s}")
                    continue
                res = load(os.path.join(pop, "result.json"))
                member = os.path.join(pop, res["members"][res["best"]]["dir"])
                if not finished(member, judged=True):
                    short.append(f"{env}/{row}/seed{s} (pick not judged)")
                    continue
                take(member, os.path.join(cmp, env, f"{row}-{SIZE}", f"seed{s}"))
                used[row] = used.get(row, 0) + sum(m["frames"] for m in res["members"])
            b = best_fixed(env, s, SIZE)
            if b is None:
                short.append(f"{env}/fixed-best{SIZE}/seed{s}")
            else:
                take(b, os.path.join(cmp, env, f"fixed-best{SIZE}", f"seed{s}"))
    if not used:
        lines.append("Populations: none finished yet.\n")
        return
    fixed_frames = 0
    for env in ENVS:
        for s in POP_SEEDS:
            for k in range(SIZE):
                run = os.path.join(OUT, "single", env, "fixed", f"seed{SIZE * s + k}")
                if finished(run):
                    fixed_frames += load(os.path.join(run, "summary.json"))["frames"]
    full = len(ENVS) * len(POP_SEEDS)
    ns = {}  # best-of-N's N, from a row's frames over all its populations: once they are all there
    for row, u in used.items():
        if not short and fixed_frames and u / fixed_frames <= 0.65:
            n = round(u / (full * FRAMES))
            ns[row] = n
            for env in ENVS:
                for s in POP_SEEDS:
                    b = best_fixed(env, s, n)
                    if b is not None:
                        take(b, os.path.join(cmp, env, f"fixed-best{n}", f"seed{s}"))
    rows = [f"{r}-{SIZE}" for r in POP_ROWS] + [f"fixed-best{SIZE}"] + sorted({f"fixed-best{n}" for n in ns.values()})
    manifest(cmp, rows, POP_SEEDS)
    agg, env = report(cmp, f"fixed-best{SIZE}", judge=True)
    lines.append(f"## Populations (population seeds 0–4, {SIZE} members; score: the pick's policy-final on 50 fresh episodes; 1 = best-of-{SIZE}'s IQM)\n")
    lines.append("| row | runs | " + " | ".join(f"{e} IQM [95 % CI]" for e in ENVS) +
                 f" | aggregate IQM [95 % CI] | of best-of-{SIZE}'s | P(> best-of-{SIZE}) [95 % CI] | frames of best-of-{SIZE}'s | P(> best-of-N at its frames) | goal 2 |")
    lines.append("|---|---|" + "---|" * len(ENVS) + "---|---|---|---|---|---|")
    ref = agg.get(f"fixed-best{SIZE}")
    met = []
    for row in rows:
        a = agg.get(row)
        if a is None:
            continue
        cells = ["–" if env.get(row, {}).get(e) is None else ci(env[row][e]["iqm_at_budget"]) for e in ENVS]
        iqm, p = a["normalised_iqm"], a.get("p_over_reference")
        base = row[:-len(f"-{SIZE}")] if row.endswith(f"-{SIZE}") else None
        share = used.get(base, 0) / fixed_frames if base in used and fixed_frames else None
        ratio = iqm["point"] / ref["normalised_iqm"]["point"] if ref and iqm["point"] is not None else None
        vs_n, goal = "–", False
        if base is not None:
            # Amendment 1: at best-of-8's frames give or take each run's
            # last batch (results/untuned/amendment-1.md).
            goal = share is not None and share <= 1.0 + max_batch() / FRAMES and beats(p)
            if base in ns:
                nagg, _ = report(cmp, f"fixed-best{ns[base]}", judge=True)
                pn = nagg.get(row, {}).get("p_over_reference")
                vs_n = f"best-of-{ns[base]}: {ci(pn)}"
                match = (ratio is not None and ratio >= 0.98 and p and p.get("point") is not None
                         and p["lo"] <= 0.5 <= p["hi"] and share <= 0.65 and beats(pn))
                goal = goal or match
            if goal:
                met.append(base)
        lines.append(f"| {row} | {a['runs']} | " + " | ".join(cells) + f" | {ci(iqm)} | "
                     + ("–" if ratio is None else f"{ratio:.3f}") + f" | {ci(p) if base else '–'} | "
                     + ("–" if share is None else f"{share:.3f}") + f" | {vs_n} | "
                     + ("–" if base is None else goal_cell(goal, short)) + " |")
    lines.append("")
    lines.append(f"Frames: each row's over best-of-{SIZE}'s, summed over its populations; goal 2's first test allows up to "
                 f"1 + {max_batch()} / {FRAMES} (each run's last batch past its budget: amendment-1.md).\n")
    if short:
        lines.append(f"**No verdict yet for goal 2**: not finished: {len(short)} ({', '.join(short[:6])}{' …' if len(short) > 6 else ''}).\n")
    else:
        lines.append(f"**Goal 2 (populations): {'met by ' + ', '.join(met) if met else 'not met'}.**\n")
        kept_reports(cmp, f"fixed-best{SIZE}")
    swimmer_goal(lines, "population", {r: env.get(r, {}).get("swimmer") for r in rows}, bool(short))


def main(argv):
    global OUT
    OUT = argv[1] if len(argv) > 1 else "results/untuned"
    lines = ["# The untuned-environments study: verdict\n",
             "The rule: results/untuned/README.md (written before any run). Made by scripts/untuned-verdict.py.\n"]
    single(lines)
    populations(lines)
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(OUT, "verdict.md"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    OUT = "results/untuned"
    sys.exit(main(sys.argv))
