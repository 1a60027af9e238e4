#!/usr/bin/env bash
# bitexact-check.sh: does a hyperctl binary reproduce committed `fixed` runs
# bit for bit (issue 39, point 4)? Each run folder is retrained with
#
#   nice -n 5 BINARY --log-format json train --config RUN/config.toml --out TMP/<n>
#
# (config.toml is the run's own effective configuration: env, seed, frame
# budget, iteration cap, every ppo key) and its train.csv, eval.csv and
# summary.json are compared with the committed ones, every column and field
# but the timings (wall_time_s, controller_time_s, frames_per_second). Runs
# go one at a time. It prints one line per run and a last line
# "bitexact: K of N runs identical"; it exits 1 when any run differs.
#
# With REF=<another binary>, each run is also retrained with REF and BINARY
# is compared with that fresh run instead of the committed files (for a
# machine on which the committed runs' own binary does not reproduce them:
# the comparison is then between two binaries on the same machine). With
# FRAMES=<n>, runs stop at n frames (--frames n) instead of their budget
# (then compare with REF: the committed files are whole runs).
#
#   scripts/bitexact-check.sh BINARY RUN_DIR...
#   e.g. scripts/bitexact-check.sh /tmp/hyperctl results/decide-control/halfcheetah/fixed/seed{0,1}
#   REF=/tmp/hyperctl-before FRAMES=100000 scripts/bitexact-check.sh /tmp/hyperctl RUN_DIR...
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BINARY RUN_DIR..." >&2; exit 2; }
bin=$1; shift
[ -x "$bin" ] || { echo "bitexact-check: $bin is not an executable" >&2; exit 2; }
tmp=$(mktemp -d /tmp/bitexact.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ok=0 n=0 fail=0
for run in "$@"; do
  [ -f "$run/config.toml" ] || { echo "bitexact-check: $run has no config.toml" >&2; exit 2; }
  n=$((n + 1))
  out=$tmp/$n
  extra=()
  [ -n "${FRAMES:-}" ] && extra=(--frames "$FRAMES")
  t0=$(date +%s)
  if ! nice -n 5 "$bin" --log-format json train --config "$run/config.toml" "${extra[@]}" --out "$out" >"$tmp/$n.log" 2>&1; then
    echo "$run: FAILED to train (log below)"; tail -5 "$tmp/$n.log"; fail=1; continue
  fi
  t1=$(date +%s)
  want=$run
  if [ -n "${REF:-}" ]; then
    want=$tmp/ref$n
    if ! nice -n 5 "$REF" --log-format json train --config "$run/config.toml" "${extra[@]}" --out "$want" >"$tmp/ref$n.log" 2>&1; then
      echo "$run: REF $REF FAILED to train (log below)"; tail -5 "$tmp/ref$n.log"; fail=1; continue
    fi
  fi
  if line=$(/usr/bin/python3 - "$want" "$out" <<'PY'
import csv, filecmp, json, os, sys
old, new = sys.argv[1], sys.argv[2]
timing = {"wall_time_s", "controller_time_s", "frames_per_second"}
def rows(path):
    with open(path, newline="") as f:
        r = list(csv.DictReader(f))
    return [{k: v for k, v in row.items() if k not in timing} for row in r]
msgs, counts = [], []
for name in ("train.csv", "eval.csv"):
    a, b = rows(f"{old}/{name}"), rows(f"{new}/{name}")
    same = sum(1 for x, y in zip(a, b) if x == y)
    counts.append(f"{name} {same}/{len(a)} rows")
    if len(a) != len(b) or same != len(a):
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        msgs.append(f"{name}: {len(a)} vs {len(b)} rows, first difference at row {first}")
sa, sb = (json.load(open(f"{d}/summary.json")) for d in (old, new))
sa, sb = ({k: v for k, v in s.items() if k not in timing} for s in (sa, sb))
diff = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
counts.append(f"summary.json {len(sa) - len(diff)}/{len(sa)} fields")
if diff:
    msgs.append("summary.json differs in " + ", ".join(diff))
for name in ("policy-final.safetensors", "policy-best.safetensors"):  # weights, when both runs have them
    if os.path.exists(f"{old}/{name}") and os.path.exists(f"{new}/{name}"):
        same = filecmp.cmp(f"{old}/{name}", f"{new}/{name}", shallow=False)
        counts.append(f"{name} {'identical' if same else 'DIFFERS'}")
        if not same:
            msgs.append(f"{name} differs")
print(("identical" if not msgs else "DIFFERENT") + ": " + ", ".join(counts)
      + f"; final eval {sb.get('final_eval_return')}" + ("" if not msgs else "; " + "; ".join(msgs)))
sys.exit(1 if msgs else 0)
PY
  ); then ok=$((ok + 1)); else fail=1; fi
  echo "$run${REF:+ (against REF)}${FRAMES:+ ($FRAMES frames)}: $line ($((t1 - t0)) s)"
done
echo "bitexact: $ok of $n runs identical"
exit $fail
