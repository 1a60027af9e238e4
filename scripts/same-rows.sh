# same-rows.sh, sourced: the one rule for "the same run" between two run
# folders' CSVs (train.csv, eval.csv): every row identical, timing columns
# aside. The timing columns are wall_time_s and controller_time_s, columns 3
# and 4 of both files (configs/rundir's schema), which vary from one sitting
# to the next; everything else a deterministic run writes must be equal.
#
#   same_rows WANT GOT   prints "identical/total" rows of WANT matched in GOT
#                        (plus the row count of GOT when it differs); exit
#                        status 0 only when every row matches and the counts
#                        are equal.
same_rows() {
  awk -F, 'NR == FNR { if (FNR > 1) { $3 = $4 = ""; want[FNR] = $0; n = FNR - 1 }; next }
           FNR > 1 { $3 = $4 = ""; m++; if (want[FNR] == $0) ok++ }
           END { printf "%d/%d", ok, n; if (m != n) printf " (the other has %d rows)", m
                 exit !(ok == n && m == n) }' "$1" "$2"
}
