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
first=${SEEDS%-*}
last=${SEEDS#*-}
if ! [[ "$first" =~ ^[0-9]+$ && "$last" =~ ^[0-9]+$ ]] || [ "$first" -gt "$last" ]; then
  echo "population: SEEDS=$SEEDS: want a range A-B of seeds, A <= B" >&2
  exit 2
fi
