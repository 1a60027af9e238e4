#!/usr/bin/env bash
# study.sh: one resumable study, a `hyperctl compare` at a matched frame
# budget followed by `hyperctl report`, niced, with one binary per study.
# The options study (issue 17) ran with its defaults below; the control
# tuning of issue 25 runs it once per variant (scripts/tune-control.sh).
#
#   matrix       ENVS x ROWS x SEEDS runs of FRAMES frames, with CONFIG
#   output       OUT/<env>/<row>/seed<N>, then OUT/report (hyperctl report)
#
# It is resumable: finished runs are skipped and unfinished ones resumed, so
# run it again after an interruption (Ctrl-C checkpoints the running runs).
# Everything runs at nice 19. The binary is built once per commit into bin/
# (git-ignored) and its commit recorded in OUT/build.txt; a re-run on
# another commit refuses to mix binaries unless ALLOW_NEW_BINARY=1.
#
# Settings (environment variables), with the options study's values as
# defaults:
#   OUT     output folder               results/study-options
#   ENVS    environments                halfcheetah,pusher,bipedalwalker,inverteddoublependulum,reacher
#   ROWS    --controllers               hypercontroller, its four presets intercept, kframe, lr-scale, rl, and fixed
#   SEEDS   --seeds                     0-4
#   CONFIG  --config                    (none: configs/<env>.toml)
#   FRAMES  --frames                    1000000
#   ITERS   --iterations (the cap)      FRAMES/1000: the paper's space never picks fewer than 1000 frames
#   JOBS    --jobs                      2
#   FOCUS   report --focus              hypercontroller@rl
#   GROW    1: the seeds may extend the matrix already in OUT (compare --force)
#   EXTRA   more compare flags, space-separated (e.g. --set ppo.lr=1e-4)
#   HYPERCTL  use this binary instead of building one
#   BUILD     the commit HYPERCTL was built from (recorded in OUT/build.txt)
#
# A tiny check of the script itself (one environment, one seed, 20,000 frames):
#   OUT=/tmp/study-tiny ENVS=reacher SEEDS=0 FRAMES=20000 scripts/study.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null 2>&1 || export PATH="/usr/local/go/bin:$PATH"

OUT=${OUT:-results/study-options}
ENVS=${ENVS:-halfcheetah,pusher,bipedalwalker,inverteddoublependulum,reacher}
ROWS=${ROWS:-hypercontroller,hypercontroller@intercept,hypercontroller@kframe,hypercontroller@lr-scale,hypercontroller@rl,fixed}
SEEDS=${SEEDS:-0-4}
FRAMES=${FRAMES:-1000000}
ITERS=${ITERS:-$(( (FRAMES + 999) / 1000 ))}
JOBS=${JOBS:-2}
FOCUS=${FOCUS:-hypercontroller@rl}
extra=()
if [ -n "${CONFIG:-}" ]; then
  extra=(--config "$CONFIG")
fi
if [ "${GROW:-0}" = 1 ]; then
  extra+=(--force)
fi
if [ -n "${EXTRA:-}" ]; then
  read -r -a more <<< "$EXTRA"
  extra+=("${more[@]}")
fi

source scripts/study-binary.sh

start=$(date -u +%FT%TZ)
echo "study: $ENVS x $ROWS x seeds $SEEDS at $FRAMES frames (at most $ITERS iterations), $JOBS jobs, into $OUT ($start)"
nice -n 19 "$bin" --log-format json compare \
  --env "$ENVS" --controllers "$ROWS" --seeds "$SEEDS" \
  --frames "$FRAMES" --iterations "$ITERS" --jobs "$JOBS" --out "$OUT" "${extra[@]}"
nice -n 19 "$bin" report "$OUT" --focus "$FOCUS" --out "$OUT/report"
echo "study: started $start, done $(date -u +%FT%TZ); report in $OUT/report/report.md"
