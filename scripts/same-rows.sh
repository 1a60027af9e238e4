# same-rows.sh, sourced: same_rows WANT GOT compares two run CSVs (train.csv,
# eval.csv) by scripts/same-run.py, the one rule for "the same run" (every
# row identical, timing columns aside). It prints "identical/total" rows of
# WANT found in GOT (plus GOT's row count when it differs); exit status 0
# only when every row matches and the counts are equal.
same_rows() {
  /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/same-run.py" --rows "$1" "$2"
}
