#!/usr/bin/env bash
# gen-proto.sh [OUTDIR] regenerates the Go code of every committed *.proto
# (git ls-files '*.proto'), next to each file in the source tree, or under
# OUTDIR with the same relative paths (the staleness tests compare the two).
#
# protoc is Debian's protobuf-compiler (scripts/setup.sh installs it). The
# plugins are pinned by go.mod's tool directive and run through `go tool`,
# so nothing is downloaded: protoc-gen-go (google.golang.org/protobuf) and
# protoc-gen-connect-go (connectrpc.com/connect). Imports are relative to the
# repository root; Google's well-known types come from libprotobuf-dev.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"
command -v protoc >/dev/null 2>&1 || { echo "gen-proto: protoc not found; run scripts/setup.sh (Debian protobuf-compiler)" >&2; exit 1; }

out="${1:-$root}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

mapfile -t protos < <(git ls-files '*.proto')
if [ ${#protos[@]} -eq 0 ]; then
  echo "gen-proto: no committed .proto files" >&2
  exit 0
fi

plugins="$(mktemp -d)"
trap 'rm -rf "$plugins"' EXIT
for p in protoc-gen-go protoc-gen-connect-go; do
  printf '#!/bin/sh\ncd "%s" && exec go tool %s "$@"\n' "$root" "$p" > "$plugins/$p"
  chmod +x "$plugins/$p"
done

includes=(-I .)
[ -f /usr/include/google/protobuf/struct.proto ] && includes+=(-I /usr/include)

# Only files that declare a service need the Connect plugin.
services=()
for f in "${protos[@]}"; do
  if grep -qE '^[[:space:]]*service[[:space:]]' "$f"; then services+=("$f"); fi
done

protoc "${includes[@]}" \
  --plugin=protoc-gen-go="$plugins/protoc-gen-go" \
  --go_out="$out" --go_opt=paths=source_relative \
  "${protos[@]}"
if [ ${#services[@]} -gt 0 ]; then
  protoc "${includes[@]}" \
    --plugin=protoc-gen-connect-go="$plugins/protoc-gen-connect-go" \
    --connect-go_out="$out" --connect-go_opt=paths=source_relative \
    "${services[@]}"
fi
echo "gen-proto: generated Go code for ${#protos[@]} .proto file(s) into $out" >&2
