# mfpbt-build.sh, sourced by population-decide.sh: the commit that trains
# the deciding study's MF-PBT rows is the study's binary (1e7aa0ea8ec1)
# with one file from main's fix 56997f0f (experiment/population/define.go:
# MF-PBT no longer resamples). It was first a local branch
# (study-mfpbt-fix, 9d4ccdb24398) that a later checkout did not keep; this
# builds the same tree as a commit with fixed metadata, so every clone
# gets the same hash. It prints that hash, or fails (a message on stderr)
# when the clone lacks either commit: it never makes a commit of another
# tree.
mfpbt_build_commit() {
  local base=1e7aa0ea8ec1 fix=56997f0f file=experiment/population/define.go
  local idx blob tree parent
  parent=$(git rev-parse --verify --quiet "$base^{commit}") &&
    blob=$(git rev-parse --verify --quiet "$fix:$file") || {
    echo "mfpbt-build: this clone lacks commit $base or $fix:$file" >&2
    return 1
  }
  idx=$(mktemp -u)
  GIT_INDEX_FILE=$idx git read-tree "$parent" &&
    GIT_INDEX_FILE=$idx git update-index --cacheinfo "100644,$blob,$file" &&
    tree=$(GIT_INDEX_FILE=$idx git write-tree) || { rm -f "$idx"; return 1; }
  rm -f "$idx"
  GIT_AUTHOR_NAME=hyperctl GIT_AUTHOR_EMAIL=hyperctl@localhost \
    GIT_AUTHOR_DATE='2026-11-28T06:20:00Z' \
    GIT_COMMITTER_NAME=hyperctl GIT_COMMITTER_EMAIL=hyperctl@localhost \
    GIT_COMMITTER_DATE='2026-11-28T06:20:00Z' \
    git commit-tree "$tree" -p "$parent" \
    -m "study-mfpbt-fix: $base with $file from $fix (MF-PBT does not resample)"
}
