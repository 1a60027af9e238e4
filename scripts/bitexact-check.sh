#!/usr/bin/env bash
# bitexact-check.sh: does a hyperctl binary reproduce committed `fixed` runs
# bit for bit (issue 39, point 4)? Each run folder is retrained with
#
#   nice -n 5 BINARY --log-format json train --config RUN/config.toml --out TMP/<n>
#
# (config.toml is the run's own effective configuration: env, seed, frame
# budget, iteration cap, every ppo key) and its train.csv, eval.csv and
# summary.json are compared with the committed ones, every column and field
# but the timings (scripts/same-run.py, the one rule for "the same run"). Runs
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
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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
  if line=$(/usr/bin/python3 "$here/same-run.py" "$want" "$out"); then ok=$((ok + 1)); else fail=1; fi
  echo "$run${REF:+ (against REF)}${FRAMES:+ ($FRAMES frames)}: $line ($((t1 - t0)) s)"
done
echo "bitexact: $ok of $n runs identical"
exit $fail
