# wrong-start-settings.sh, sourced by the scripts of issue 37: the wrong
# starts' table and the kept ones, read in one place.
#   start_settings NAME   sets iters (the iteration cap) and sets (the
#                         start's --set flags) from results/wrong-start/starts.tsv
#   kept_starts           the starts that keep.md marks kept (its rule is
#                         scripts/wrong-start-keep.py's)
table=results/wrong-start/starts.tsv
keep=results/wrong-start/keep.md
start_settings() {
  local line kv
  line=$(awk -F'\t' -v s="$1" '$1 == s' "$table")
  if [ -z "$line" ]; then
    echo "wrong-start: no start named $1 in $table" >&2
    exit 2
  fi
  iters=$(cut -f2 <<< "$line")
  sets=""
  for kv in $(cut -f3 <<< "$line"); do
    sets="$sets --set $kv"
  done
}
kept_starts() {
  awk -F'|' 'NF > 9 && $10 ~ /yes/ { gsub(/ /, "", $2); printf "%s ", $2 }' "$keep"
}
