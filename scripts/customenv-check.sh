#!/usr/bin/env bash
# customenv-check.sh: examples/customenv as an outside user builds it (its
# own module, hyperctl and gotch by replace), vetted and tested (check.sh's
# gofmt step covers its files), then a few
# iterations of training on its environment, with fixed hyperparameters and
# with HyperController, into a temporary folder that the built hyperctl's
# status, report and dashboard then read. hyperctl eval must refuse the folder (the
# binary has no such environment) and the example's own -eval must
# evaluate it. Part of scripts/check.sh: 66 s with a warm build cache on
# the shared 2-core machine at load 14 (11 s of CPU), mostly building.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/hyperctl" ./cmd/hyperctl
(
  cd examples/customenv
  go vet ./...
  go test -count=1 ./...
  go build -o "$tmp/customenv" .
)

runs="$tmp/runs"
"$tmp/customenv" -out "$runs/fixed" -iterations 3 2>"$tmp/fixed.log" || { cat "$tmp/fixed.log" >&2; exit 1; }
"$tmp/customenv" -out "$runs/hypercontroller" -controller hypercontroller -iterations 5 2>"$tmp/hc.log" || { cat "$tmp/hc.log" >&2; exit 1; }

status=$("$tmp/hyperctl" status "$runs")
echo "$status"
grep -q '^status: 2 runs: 2 finished' <<<"$status" || { echo "customenv: status does not count 2 finished runs" >&2; exit 1; }
"$tmp/hyperctl" report "$runs" --out "$tmp/report" --resamples 200 >"$tmp/report.out" 2>"$tmp/report.log" || { cat "$tmp/report.log" >&2; exit 1; }
for c in fixed hypercontroller; do
  grep -q "^| $c | 1/1 |" "$tmp/report/report.md" || { echo "customenv: report.md has no finished row for $c" >&2; exit 1; }
done

# dashboard: the page's overview lists both runs, finished.
"$tmp/hyperctl" dashboard "$runs" --listen 127.0.0.1:0 --addr-file "$tmp/addr" --log-format json 2>"$tmp/dashboard.log" &
dash=$!
for _ in $(seq 100); do [ -s "$tmp/addr" ] && break; sleep 0.1; done
overview=$(curl -fsS "http://$(cat "$tmp/addr")/api/overview" || true)
kill "$dash"
wait "$dash" 2>/dev/null || true
n=$(grep -o '"env":"pointmass"[^}]*"state":"finished"' <<<"$overview" | wc -l)
[ "$n" = 2 ] || { echo "customenv: the dashboard's overview does not list 2 finished pointmass runs: $overview" >&2; cat "$tmp/dashboard.log" >&2; exit 1; }

if "$tmp/hyperctl" eval "$runs/fixed" >"$tmp/eval.out" 2>&1; then
  echo "customenv: hyperctl eval accepted an environment it does not register" >&2
  exit 1
fi
grep -q 'unknown environment "pointmass"' "$tmp/eval.out" || { cat "$tmp/eval.out" >&2; exit 1; }
"$tmp/customenv" -eval "$runs/hypercontroller" -episodes 3
echo "customenv: trained; status, report, dashboard and the example's eval read the folder; hyperctl eval refuses it"
