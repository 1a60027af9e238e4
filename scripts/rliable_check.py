#!/usr/bin/python3
"""Recompute hyperctl report's decision statistics with numpy alone.

An independent check of experiment/analysis/stats.go, written from
the definitions (rliable: Agarwal et al., NeurIPS 2021), not from the Go
code. Used by TestStatsAgainstNumpy; run with Debian's interpreter:

    /usr/bin/python3 scripts/rliable_check.py IN.json OUT.json

IN.json holds one or more cases:

    {"cases": [{
        "name": str,
        "ref": "fixed",                       # the reference row
        "data": {env: {row: [score, ...]}},   # ordered by seed
        "random": {env: mean},                # random policy's return
        "resamples": {                        # Go's resample indices
            "row": {row: [{env: [i, ...]}, ...]},        # one per resample
            "poi": {row: [{env: [[i, ...], [j, ...]]}, ...]}
        },
        "independent": {"reps": int, "seed": int}  # optional
    }]}

OUT.json gets, per case name, the normalisation, the point estimates, the
profile, the percentile CIs on Go's very resamples ("same") and, when asked,
the CIs of an independent numpy bootstrap and the bootstrap statistics
behind them ("independent").

Definitions:
- IQM: the 25 % trimmed mean, dropping int(0.25 n) values from each end of
  the sorted scores (scipy.stats.trim_mean(x, 0.25)).
- P(X > Y) on one environment: the fraction of (x, y) pairs with x > y,
  ties counting 1/2 (Mann-Whitney U over m n). The aggregate is the mean
  over the environments where both rows have scores.
- Normalisation on an environment: (s - random) / (IQM of ref - random);
  defined when ref has scores there and its IQM is above random.
- Aggregate IQM: the IQM of the row's normalised scores pooled over the
  normalised environments.
- Profile: the fraction of the pooled normalised scores above tau, on 201
  evenly spaced tau from floor(10 min(0, lowest))/10 to
  ceil(10 max(2, highest))/10 over every row's normalised scores.
- CI: the 2.5th and 97.5th percentiles (numpy's default linear
  interpolation) of the statistic over the resamples. A stratified resample
  draws, per environment, as many runs as it has, with replacement; for
  P(X > Y) the runs of X and of Y are drawn independently.
"""

import json
import sys

import numpy as np

PROFILE_POINTS = 201


def iqm(x):
    s = np.sort(np.asarray(x, dtype=np.float64))
    cut = int(0.25 * len(s))
    return float(np.mean(s[cut:len(s) - cut]))


def prob_improvement(x, y):
    x = np.asarray(x, dtype=np.float64)[:, None]
    y = np.asarray(y, dtype=np.float64)[None, :]
    wins = np.sum(x > y) + 0.5 * np.sum(x == y)
    return float(wins / (x.shape[0] * y.shape[1]))


def ci(stats):
    lo, hi = np.percentile(np.asarray(stats, dtype=np.float64), [2.5, 97.5])
    return [float(lo), float(hi)]


def envs_of(data):
    return sorted(e for e in data if any(len(v) > 0 for v in data[e].values()))


def rows_of(data):
    return sorted({r for e in data for r, v in data[e].items() if len(v) > 0})


def scores(data, env, row):
    return data.get(env, {}).get(row, [])


def normalisation(case):
    data, ref, random = case["data"], case["ref"], case["random"]
    norm = {}
    for env in envs_of(data):
        r = scores(data, env, ref)
        if env not in random or len(r) == 0:
            continue
        top = iqm(r)
        if top > random[env]:
            norm[env] = (random[env], top)
    return norm


def normalise(norm, env, x):
    zero, one = norm[env]
    return (np.asarray(x, dtype=np.float64) - zero) / (one - zero)


def profile_grid(data, norm):
    lo, hi = 0.0, 2.0
    for env in norm:
        for row in data[env]:
            v = scores(data, env, row)
            if len(v):
                z = normalise(norm, env, v)
                lo, hi = min(lo, float(z.min())), max(hi, float(z.max()))
    lo, hi = np.floor(lo * 10) / 10, np.ceil(hi * 10) / 10
    return lo + (hi - lo) * np.arange(PROFILE_POINTS) / (PROFILE_POINTS - 1)


def row_statistics(data, norm, envs, row, tau, pick):
    """Per-env IQMs, aggregate IQM and profile of one (re)sample.

    pick(env, values) returns the values of the resample."""
    per_env, pooled = {}, []
    for env in envs:
        v = scores(data, env, row)
        if len(v) == 0:
            continue
        s = pick(env, np.asarray(v, dtype=np.float64))
        per_env[env] = iqm(s)
        if env in norm:
            pooled.append(normalise(norm, env, s))
    if not pooled:
        return per_env, None, None
    pooled = np.concatenate(pooled)
    profile = np.mean(pooled[:, None] > tau[None, :], axis=0)
    return per_env, iqm(pooled), profile


def poi_statistics(data, ref, envs, row, pick_x, pick_y):
    per_env = {}
    for env in envs:
        x, y = scores(data, env, row), scores(data, env, ref)
        if len(x) == 0 or len(y) == 0:
            continue
        per_env[env] = prob_improvement(pick_x(env, np.asarray(x)), pick_y(env, np.asarray(y)))
    if not per_env:
        return per_env, None
    return per_env, float(np.mean(list(per_env.values())))


def intervals(data, ref, norm, envs, rows, tau, row_picks, poi_picks, keep=False):
    """CIs over resamples given as pickers: row_picks[row] is a list of
    pick(env, values); poi_picks[row] a list of (pick_x, pick_y). With keep,
    out["dist"] also holds the bootstrap statistics behind every CI but the
    profile's."""
    out = {"env_iqm": {}, "agg_iqm": {}, "profile": {}, "env_poi": {}, "agg_poi": {}}
    dist = {"env_iqm": {}, "agg_iqm": {}, "env_poi": {}, "agg_poi": {}}
    for row in rows:
        env_stats, agg, prof = {}, [], []
        for pick in row_picks[row]:
            per_env, a, p = row_statistics(data, norm, envs, row, tau, pick)
            for env, v in per_env.items():
                env_stats.setdefault(env, []).append(v)
            if a is not None:
                agg.append(a)
                prof.append(p)
        out["env_iqm"][row] = {env: ci(v) for env, v in env_stats.items()}
        dist["env_iqm"][row], dist["agg_iqm"][row] = env_stats, agg
        if agg:
            out["agg_iqm"][row] = ci(agg)
            lo, hi = np.percentile(np.array(prof), [2.5, 97.5], axis=0)
            out["profile"][row] = {"lo": lo.tolist(), "hi": hi.tolist()}
        if row == ref or row not in poi_picks:
            continue
        env_stats, agg = {}, []
        for pick_x, pick_y in poi_picks[row]:
            per_env, a = poi_statistics(data, ref, envs, row, pick_x, pick_y)
            for env, v in per_env.items():
                env_stats.setdefault(env, []).append(v)
            if a is not None:
                agg.append(a)
        out["env_poi"][row] = {env: ci(v) for env, v in env_stats.items()}
        dist["env_poi"][row], dist["agg_poi"][row] = env_stats, agg
        if agg:
            out["agg_poi"][row] = ci(agg)
    if keep:
        out["dist"] = dist
    return out


def check_case(case):
    data, ref = case["data"], case["ref"]
    envs, rows = envs_of(data), rows_of(data)
    norm = normalisation(case)
    tau = profile_grid(data, norm)
    res = {
        "norm_envs": sorted(norm),
        "ref_iqm": {env: norm[env][1] for env in norm},
        "normalised": {env: {row: normalise(norm, env, scores(data, env, row)).tolist()
                             for row in data[env] if len(scores(data, env, row))}
                       for env in norm},
        "tau": tau.tolist(),
        "env_iqm": {}, "agg_iqm": {}, "profile": {}, "env_poi": {}, "agg_poi": {},
    }
    has_ref = any(len(scores(data, env, ref)) for env in envs)
    for row in rows:
        per_env, agg, prof = row_statistics(data, norm, envs, row, tau, lambda env, v: v)
        res["env_iqm"][row] = per_env
        if agg is not None:
            res["agg_iqm"][row] = agg
            res["profile"][row] = prof.tolist()
        if has_ref and row != ref:
            per_env, agg = poi_statistics(data, ref, envs, row, lambda e, v: v, lambda e, v: v)
            res["env_poi"][row] = per_env
            if agg is not None:
                res["agg_poi"][row] = agg

    # The same resamples as Go.
    def take(ix):
        return lambda env, v: v[np.asarray(ix[env], dtype=np.int64)]

    rs = case["resamples"]
    row_picks = {row: [take(ix) for ix in rs["row"].get(row, [])] for row in rows}
    poi_picks = {}
    for row, reps in rs.get("poi", {}).items():
        poi_picks[row] = [(take({e: p[0] for e, p in ix.items()}),
                           take({e: p[1] for e, p in ix.items()})) for ix in reps]
    res["same"] = intervals(data, ref, norm, envs, rows, tau, row_picks, poi_picks)

    # An independent stratified bootstrap with numpy's own generator.
    ind = case.get("independent")
    if ind:
        gen = np.random.default_rng(ind["seed"])
        reps = ind["reps"]

        def draw(n_env):
            return {env: gen.integers(0, n, size=n) for env, n in n_env.items()}

        row_picks, poi_picks = {}, {}
        for row in rows:
            n_env = {env: len(scores(data, env, row)) for env in envs if len(scores(data, env, row))}
            row_picks[row] = [take(draw(n_env)) for _ in range(reps)]
            if has_ref and row != ref:
                both = [e for e in envs if len(scores(data, e, row)) and len(scores(data, e, ref))]
                nx = {e: len(scores(data, e, row)) for e in both}
                ny = {e: len(scores(data, e, ref)) for e in both}
                poi_picks[row] = [(take(draw(nx)), take(draw(ny))) for _ in range(reps)]
        res["independent"] = intervals(data, ref, norm, envs, rows, tau, row_picks, poi_picks, keep=True)
    return res


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        cases = json.load(f)["cases"]
    out = {c["name"]: check_case(c) for c in cases}
    with open(argv[2], "w") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
