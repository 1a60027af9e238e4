# mfpbt-build.sh, sourced by population-decide.sh: the commit that trains
# the deciding study's MF-PBT rows is the study's binary (1e7aa0ea8ec1)
# with one file from main's fix 56997f0f (experiment/population/define.go:
# MF-PBT no longer resamples). It was first a local branch
# (study-mfpbt-fix, 9d4ccdb24398) that a later checkout did not keep; this
# builds the same tree as a commit with fixed metadata, so every clone
# gets the same hash. It prints that hash.
mfpbt_build_commit() {
  local base=1e7aa0ea8ec1 fix=56997f0f file=experiment/population/define.go
  local idx tree
  idx=$(mktemp)
  rm -f "$idx"
  GIT_INDEX_FILE=$idx git read-tree "$base"
  GIT_INDEX_FILE=$idx git update-index --cacheinfo "100644,$(git rev-parse "$fix:$file"),$file"
  tree=$(GIT_INDEX_FILE=$idx git write-tree)
  rm -f "$idx"
  GIT_AUTHOR_NAME=hyperctl GIT_AUTHOR_EMAIL=hyperctl@localhost \
    GIT_AUTHOR_DATE='2026-11-28T06:20:00Z' \
    GIT_COMMITTER_NAME=hyperctl GIT_COMMITTER_EMAIL=hyperctl@localhost \
    GIT_COMMITTER_DATE='2026-11-28T06:20:00Z' \
    git commit-tree "$tree" -p "$(git rev-parse "$base^{commit}")" \
    -m "study-mfpbt-fix: $base with $file from $fix (MF-PBT does not resample)"
}
