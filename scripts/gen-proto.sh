#!/usr/bin/env bash
# gen-proto.sh [OUTDIR]: regenerates the Go code of every committed *.proto
# (git ls-files '*.proto') with Debian's protoc and the protoc-gen-go pinned
# by go.mod's tool directive (no binary is downloaded). The code goes beside
# each .proto by default, or under OUTDIR with the same relative paths
# (the staleness tests generate into a temporary OUTDIR and compare).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
command -v protoc >/dev/null 2>&1 || { echo "gen-proto: protoc not found (scripts/setup.sh installs protobuf-compiler)" >&2; exit 1; }
out="${1:-.}"
mkdir -p "$out"
gen_go="$(go tool -n protoc-gen-go)"
mapfile -t protos < <(git ls-files '*.proto')
[ ${#protos[@]} -gt 0 ] || { echo "gen-proto: no committed .proto files" >&2; exit 1; }
protoc -I . --plugin=protoc-gen-go="$gen_go" --go_out="$out" --go_opt=paths=source_relative "${protos[@]}"
