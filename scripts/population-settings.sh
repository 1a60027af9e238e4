# population-settings.sh, sourced by population-study.sh and
# population-compare.sh: issue 26's settings (environment variables, with
# its values as defaults; population-study.sh documents each) and the
# population seeds first…last parsed from SEEDS=A-B.
OUT=${OUT:-results/population}
ENVS=${ENVS:-halfcheetah,pusher,bipedalwalker}
METHODS=${METHODS:-pb2,pbt}
SIZES=${SIZES:-4,8}
SEEDS=${SEEDS:-0-4}
FRAMES=${FRAMES:-1000000}
READY=${READY:-50000}
ITERS=${ITERS:-$(( (FRAMES + 999) / 1000 ))}
JOBS=${JOBS:-2}
FIXED=${FIXED:-$OUT/fixed}
VARIANTS_FILE=${VARIANTS_FILE:-}
first=${SEEDS%-*}
last=${SEEDS#*-}
if ! [[ "$first" =~ ^[0-9]+$ && "$last" =~ ^[0-9]+$ ]] || [ "$first" -gt "$last" ]; then
  echo "population: SEEDS=$SEEDS: want a range A-B of seeds, A <= B" >&2
  exit 2
fi

# method_flags NAME: the `hyperctl population` flags of a METHODS entry,
# with --ready READY where the method has generations of READY frames
# (halving's are its rungs, random's the whole budget: the population
# command refuses --ready for them). NAME is a method (pbt, pb2, mfpbt,
# random, halving), or a variant named in VARIANTS_FILE: tab-separated lines
# "name<TAB>flags", the flags with their --method, e.g.
# "pbt-late<TAB>--method pbt --first-exploit 400000".
method_flags() {
  local flags=
  if [ -n "$VARIANTS_FILE" ]; then
    flags=$(awk -F'\t' -v n="$1" '!/^#/ && $1 == n { print $2; exit }' "$VARIANTS_FILE")
  fi
  if [ -z "$flags" ]; then
    case $1 in
      pbt | pb2 | mfpbt | random | halving) flags="--method $1" ;;
      *) echo "population: METHODS: $1 is neither a method (pbt, pb2, mfpbt, random, halving) nor a variant of ${VARIANTS_FILE:-VARIANTS_FILE (unset)}" >&2; return 2 ;;
    esac
  fi
  case " $flags " in
    *" --method halving "* | *" --method random "*) echo "$flags" ;;
    *) echo "$flags --ready $READY" ;;
  esac
}
