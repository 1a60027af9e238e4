# pinned-binary.sh, sourced by the study scripts that pin one binary to a
# commit for a whole study (tune-control.sh, decide-control.sh,
# wrong-start-tune.sh): it builds $HYPERCTL from commit $BUILD in a
# temporary worktree when that binary is not there yet, so later commits
# and sessions run the same code. The caller sets BUILD and HYPERCTL. The
# binary's version is BUILD (-X main.version), so every run it trains
# records the commit in its summary.json and policy files, whatever the
# machine's Go VCS stamping does (GOFLAGS here holds -buildvcs=false).
: "${BUILD:?pinned-binary.sh: set BUILD}" "${HYPERCTL:?pinned-binary.sh: set HYPERCTL}"
if [ ! -x "$HYPERCTL" ]; then
  wt=$(mktemp -d)
  git worktree add --detach "$wt" "$BUILD" >/dev/null
  (cd "$wt" && bash scripts/setup.sh && go build -ldflags "-X main.version=$BUILD" -o "$HYPERCTL" ./cmd/hyperctl)
  git worktree remove --force "$wt"
fi

# study_build OUT WHO: one binary per study. OUT/build.txt names the study's
# binary: when it is absent it is written with BUILD (and study_build
# returns 0, so the caller commits it); when it names BUILD study_build
# returns 1; when it names another binary WHO refuses and the script exits.
study_build() {
  local out=$1 who=$2
  mkdir -p "$out"
  if [ -f "$out/build.txt" ]; then
    [ "$(cat "$out/build.txt")" = "$BUILD" ] || { echo "$who: $out/build.txt names $(cat "$out/build.txt"), not BUILD=$BUILD: one binary per study" >&2; exit 2; }
    return 1
  fi
  echo "$BUILD" >"$out/build.txt"
}
