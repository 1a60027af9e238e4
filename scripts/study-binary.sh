# study-binary.sh, sourced by the study scripts (study.sh,
# population-study.sh): one binary per study. It sets bin to the hyperctl
# binary of this commit, built once into bin/ (git-ignored), or to
# $HYPERCTL (built from commit $BUILD), and records the commit in
# $OUT/build.txt; a study started on another commit is refused unless
# ALLOW_NEW_BINARY=1, so one study never mixes binaries.
mkdir -p "$OUT"
if [ -n "${BUILD:-}" ]; then
  commit=$BUILD # the caller's binary (HYPERCTL) and the commit it was built from
else
  commit=$(git rev-parse --short=12 HEAD)
  if [ -n "$(git status --porcelain --untracked-files=no -- '*.go' go.mod go.sum configs)" ]; then
    commit="$commit-dirty"
  fi
fi
if [ -f "$OUT/build.txt" ] && [ "$(cat "$OUT/build.txt")" != "$commit" ] && [ "${ALLOW_NEW_BINARY:-0}" != 1 ]; then
  echo "study: $OUT was started with commit $(cat "$OUT/build.txt"), this is $commit;" >&2
  echo "  re-run on that commit, or set ALLOW_NEW_BINARY=1 to continue with this one" >&2
  exit 1
fi
if [ -n "${HYPERCTL:-}" ]; then
  bin=$HYPERCTL
else
  bin=bin/hyperctl-study-$commit
  if [ ! -x "$bin" ]; then
    mkdir -p bin
    go build -o "$bin" ./cmd/hyperctl
  fi
fi
echo "$commit" > "$OUT/build.txt"
