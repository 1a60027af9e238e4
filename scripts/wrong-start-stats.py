#!/usr/bin/python3
"""wrong-start-stats.py: issue 37's statistics over the kept starts.

`hyperctl report` compares rows within one matrix; issue 37 pools matrices,
one per wrong start, and normalises by a reference outside them. This
script does that pooling with report's definitions (the functions of
scripts/rliable_check.py, which go test checks against report's Go code):

  score        a finished run's final evaluation (summary.json's
               final_eval_return, 10 episodes)
  normalised   per environment, (score - random) / (IQM of `fixed` from
               the defaults - random), both read from REF_REPORT's
               "Normalisation and bootstrap" table
  strata       (start, environment): the kept starts of
               results/wrong-start/keep.md times the five environments;
               the tables over the starts together, then per start
  IQM          of a row's normalised scores pooled over the strata
  P(> fixed)   per stratum, P(a run of the row > a run of `fixed` from the
               same start), ties 1/2; the mean over the strata where both
               have runs
  profile      report's performance profile, at tau = 0.25, 0.5, 0.75, 1:
               the fraction of a row's normalised scores, pooled over the
               strata, above tau
  CIs          95 % stratified-bootstrap percentile intervals, RESAMPLES
               resamples (default 10000), numpy's default_rng(SEED=0)

Modes:
  tune     the controllers' variants on seeds 100-104:
           rows results/wrong-start/variants/<variant>/<start>, `fixed` from
           the start results/wrong-start/tune/<start>, normalised by
           results/tune-control/report (fixed from the defaults, same seeds);
           prints the HyperController variant the README's rule picks
           (hc-narrow or hc-wide, the higher aggregate IQM)
  decide   the deciding matrix on seeds 0-4:
           rows results/wrong-start/decide/<start>/<row>, `fixed` among them,
           normalised by results/decide-control/report (issue 25's matrix);
           prints the README rule's verdict once every row has all its runs
           (seeds 0-4 in every stratum), and the row the trace figure shows:
           the controller that rescues, or of several that do or of none,
           the one with the highest aggregate IQM
  defaults the check at the defaults on seeds 0-4: `fixed` of issue 25's
           matrix (results/decide-control), and for each variant run from
           the defaults (results/wrong-start/defaults/<variant>: hc-narrow,
           the deciding matrix's HyperController, and hoof, the row the
           verdict's advice names; seven keys) its issue 25 form over the
           paper's four keys (hypercontroller@hc-narrow, hoof@hoof-c) beside
           it; strata are the environments, P is against `fixed`; a row is
           level with `fixed` when P's CI contains 0.5, else below or above
  defaults-env
           the same, per environment (each environment alone: its IQM and
           P over its runs), read after the verdict for the advice's cost
           at the defaults (defaults/per-env.md)
  figure ROW
           the runs of the README's trace figure, from the deciding matrix:
           the stratum (start, environment) where ROW's median normalised
           score exceeds `fixed`'s by the most, and in it the seed whose
           paired gain (ROW's run minus `fixed`'s, same seed) is the median
           of the stratum's seeds (the upper one of an even count); prints
           "START ENV SEED" (scripts/wrong-start-figure.sh draws them)

  scripts/wrong-start-stats.py tune|decide|defaults|defaults-env [RESAMPLES] [SEED]
  scripts/wrong-start-stats.py figure ROW
"""
import glob
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rliable_check import ci, iqm, prob_improvement  # noqa: E402

TAUS = (0.25, 0.5, 0.75, 1.0)
ENVS = ["halfcheetah", "pusher", "bipedalwalker", "inverteddoublependulum", "reacher"]
KEEP = "results/wrong-start/keep.md"
SEEDS = range(5)  # the deciding seeds of issue 37


def kept_starts():
    out = []
    with open(KEEP) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) > 8 and cells[-1] == "yes":
                out.append(cells[0])
    return out


def normalisation(report):
    """{env: (random, fixed IQM)} from a report's normalisation table."""
    out = {}
    with open(report) as f:
        for line in f:
            m = re.match(r"\| (\w+) \| (-?[0-9.]+) ± [0-9.]+ \(\d+\) \| (-?[0-9.]+) \[", line)
            if m:
                out[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return out


def finals(folder, env):
    """Final evaluation returns of the finished runs of env under folder."""
    return list(finals_by_seed(folder, env).values())


def finals_by_seed(folder, env, row="*"):
    """{seed: final evaluation return} of the finished runs of env under folder
    (of one row of a compare folder, or of any)."""
    out = {}
    for p in sorted(glob.glob(os.path.join(folder, env, row, "seed*", "summary.json"))):
        try:
            with open(p) as f:
                v = json.load(f)["final_eval_return"]
            if not isinstance(v, (int, float)) or not np.isfinite(v):
                raise ValueError(f"final_eval_return = {v!r}, want a finite number")
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"wrong-start-stats: {p}: {e}")
        out[int(os.path.basename(os.path.dirname(p))[len("seed"):])] = v
    return out


def figure(row, starts, norm):
    """The (start, env, seed) of the trace figure's runs (see the docstring)."""
    best = None
    for s in starts:
        for e in ENVS:
            runs = finals_by_seed(f"results/wrong-start/decide/{s}/{row}", e)
            fixed = finals_by_seed(f"results/wrong-start/decide/{s}/fixed", e)
            seeds = sorted(set(runs) & set(fixed))
            if not seeds:
                continue
            scale = norm[e][1] - norm[e][0]
            if not scale > 0:
                continue  # not normalisable (report leaves it out too)
            gain = (np.median([runs[k] for k in seeds]) - np.median([fixed[k] for k in seeds])) / scale
            if best is None or gain > best[0]:
                paired = sorted(seeds, key=lambda k: (runs[k] - fixed[k], k))
                best = (gain, s, e, paired[len(paired) // 2])
    return best


def stats(rows, ref, norm, resamples, seed):
    """rows: {row: {stratum: [score]}}, ref: the reference row's name."""
    rng = np.random.default_rng(seed)
    out = {}
    for row, data in rows.items():
        strata = [s for s in data if data[s]]
        if not strata:
            out[row] = {"runs": 0, "strata": 0}
            continue
        pooled = lambda pick: np.concatenate([(np.asarray(pick(s)) - norm[s[1]][0]) / (norm[s[1]][1] - norm[s[1]][0]) for s in strata])
        whole = pooled(lambda s: data[s])
        boots = [pooled(lambda s: rng.choice(data[s], len(data[s]))) for _ in range(resamples)]
        res = {"runs": sum(len(data[s]) for s in strata), "strata": len(strata),
               "iqm": [iqm(whole)] + ci([iqm(b) for b in boots]),
               "profile": {t: [float(np.mean(whole > t))] + ci([float(np.mean(b > t)) for b in boots]) for t in TAUS}}
        both = [s for s in strata if rows[ref].get(s)]
        if row != ref and both:
            p = float(np.mean([prob_improvement(data[s], rows[ref][s]) for s in both]))
            pb = [float(np.mean([prob_improvement(rng.choice(data[s], len(data[s])), rng.choice(rows[ref][s], len(rows[ref][s]))) for s in both]))
                  for _ in range(resamples)]
            res["p"] = [p] + ci(pb)
        out[row] = res
    return out


def profile_table(out):
    print("\nPerformance profile: the fraction of runs whose normalised score exceeds tau [95 % CI]:\n")
    print("| row | " + " | ".join(f"tau = {t:g}" for t in TAUS) + " |")
    print("|---|" + "---|" * len(TAUS))
    for row, r in out.items():
        if "profile" in r:
            print(f"| {row} | " + " | ".join("{:.2f} [{:.2f}, {:.2f}]".format(*r["profile"][t]) for t in TAUS) + " |")


def table(out, ref):
    print(f"| row | runs | strata | aggregate IQM [95 % CI] | P(> {ref} from the same start) [95 % CI] |")
    print("|---|---|---|---|---|")
    for row, r in out.items():
        p = "–" if "p" not in r else "{:.2f} [{:.2f}, {:.2f}]".format(*r["p"])
        q = "–" if "iqm" not in r else "{:.2f} [{:.2f}, {:.2f}]".format(*r["iqm"])
        print(f"| {row} | {r['runs']} | {r['strata']} | {q} | {p} |")


def main(argv):
    if len(argv) < 2 or argv[1] not in ("tune", "decide", "defaults", "defaults-env", "figure") or (argv[1] == "figure" and len(argv) != 3):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == "figure":
        best = figure(argv[2], kept_starts(), normalisation("results/decide-control/report/report.md"))
        if best is None:
            print(f"wrong-start-stats: no seed with runs of both {argv[2]} and fixed in results/wrong-start/decide", file=sys.stderr)
            return 1
        print(*best[1:])
        return 0
    resamples = int(argv[2]) if len(argv) > 2 else 10000
    seed = int(argv[3]) if len(argv) > 3 else 0
    if argv[1] in ("defaults", "defaults-env"):
        return defaults(resamples, seed, argv[1] == "defaults-env")
    starts = kept_starts()
    rows = {}
    if argv[1] == "tune":
        norm = normalisation("results/tune-control/report/report.md")
        rows["fixed"] = {(s, e): finals(f"results/wrong-start/tune/{s}", e) for s in starts for e in ENVS}
        for v in sorted(os.listdir("results/wrong-start/variants")):
            if v != "configs" and os.path.isdir(f"results/wrong-start/variants/{v}"):
                rows[v] = {(s, e): finals(f"results/wrong-start/variants/{v}/{s}", e) for s in starts for e in ENVS}
    else:
        norm = normalisation("results/decide-control/report/report.md")
        names = sorted({os.path.basename(d) for s in starts for d in glob.glob(f"results/wrong-start/decide/{s}/*")})
        for r in names:
            rows[r] = {(s, e): finals(f"results/wrong-start/decide/{s}/{r}", e) for s in starts for e in ENVS}
    if "fixed" not in rows:
        print("wrong-start-stats: no fixed row", file=sys.stderr)
        return 1
    print(f"Kept starts: {', '.join(starts)}; {resamples} resamples, seed {seed}.\n")
    out = stats(rows, "fixed", norm, resamples, seed)
    print("Over the kept starts together:\n")
    table(out, "fixed")
    profile_table(out)
    print()
    for start in starts:
        print(f"From {start} alone:\n")
        one = {row: {k: v for k, v in data.items() if k[0] == start} for row, data in rows.items()}
        table(stats(one, "fixed", norm, resamples, seed), "fixed")
        print()
    full = len(starts) * len(ENVS)
    if argv[1] == "tune":
        hc = [v for v in ("hc-narrow", "hc-wide") if v in out]
        if len(hc) == 2 and all(out[v]["runs"] == full * 5 for v in hc):
            print("HyperController variant by the rule (the higher aggregate IQM):", max(hc, key=lambda v: out[v]["iqm"][0]))
        else:
            print("no HyperController choice yet: hc-narrow and hc-wide need", full * 5, "finished runs each")
    else:
        short = [row for row, r in out.items() if r["runs"] != full * len(SEEDS)]
        if short:
            print("no verdict yet: every row needs", full * len(SEEDS), "finished runs; short:",
                  ", ".join(f"{row} ({out[row]['runs']})" for row in short))
            return 0
        rescuers = []
        for row, r in out.items():
            if "p" in r:
                rescues = r["iqm"][0] >= 0.8 and r["p"][0] >= 0.75 and r["p"][1] > 0.6
                rescuers += [row] if rescues else []
                print(f"{row}: {'rescues' if rescues else 'does not rescue'} (IQM {r['iqm'][0]:.2f} vs 0.8; P {r['p'][0]:.2f} vs 0.75, lower bound {r['p'][1]:.2f} vs 0.6)")
        pool = rescuers or [row for row in out if row != "fixed"]
        print("The trace figure's row:", max(pool, key=lambda row: out[row]["iqm"][0]))
    return 0


def defaults(resamples, seed, per_env=False):
    """The check at the defaults (see the docstring's defaults mode), over
    the environments together or (per_env) each alone."""
    norm = normalisation("results/decide-control/report/report.md")
    variants = sorted(os.path.basename(d.rstrip("/")) for d in glob.glob("results/wrong-start/defaults/*/"))
    issue25 = {"hc-narrow": "hypercontroller@hc-narrow", "hoof": "hoof@hoof-c"}
    if not variants or any(v not in issue25 for v in variants):
        print(f"wrong-start-stats: results/wrong-start/defaults holds {variants}, want studies of {sorted(issue25)}", file=sys.stderr)
        return 1
    sources = {"fixed": ("results/decide-control", "fixed")}
    for v in variants:
        sources[f"{issue25[v]} (4 keys, issue 25)"] = ("results/decide-control", issue25[v])
        sources[f"{v} (7 keys)"] = (f"results/wrong-start/defaults/{v}", "*")
    rows = {}
    for name, (folder, row) in sources.items():
        rows[name] = {("defaults", e): [v for k, v in finals_by_seed(folder, e, row).items() if k in SEEDS] for e in ENVS}
    if per_env:
        print(f"From CleanRL's defaults, seeds {SEEDS[0]}-{SEEDS[-1]}, per environment; {resamples} resamples, seed {seed}; normalised by issue 25's matrix.\n")
        for e in ENVS:
            print(f"{e}:\n")
            table(stats({row: {k: v for k, v in data.items() if k[1] == e} for row, data in rows.items()}, "fixed", norm, resamples, seed), "fixed")
            print()
        return 0
    print(f"From CleanRL's defaults, seeds {SEEDS[0]}-{SEEDS[-1]}; {resamples} resamples, seed {seed}; normalised by issue 25's matrix.\n")
    out = stats(rows, "fixed", norm, resamples, seed)
    table(out, "fixed")
    profile_table(out)
    print()
    for row, r in out.items():
        if "p" in r:
            p, lo, hi = r["p"]
            word = "level with" if lo <= 0.5 <= hi else ("below" if hi < 0.5 else "above")
            print(f"{row}: {word} fixed (P {p:.2f} [{lo:.2f}, {hi:.2f}])")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
