#!/usr/bin/env bash
# setup.sh prepares a machine to build and test hyperctl. It is idempotent:
# when nothing changed it only checks and returns within seconds.
#
#  1. Debian packages: libtorch-dev (libtorch 1.13.1, CPU), libmujoco-dev
#     (MuJoCo 2.2.2) and libopenblas0-pthread, through apt-get (as root, or
#     through sudo). Debian's libtorch links the BLAS chosen by the
#     libblas.so.3 / liblapack.so.3 / libopenblas.so.0 alternatives, which
#     is the slow reference BLAS unless an optimised one is installed. The
#     pthread flavour of OpenBLAS is safe to call from two threads at once
#     (ppo.update_threads = 2 does); the serial flavour is not (built
#     SINGLE_THREADED without USE_LOCKING, results/ppo/README.md). hyperctl
#     forces OpenBLAS to one thread itself (ppo/shim.cpp), so the flavour's
#     own thread pool stays idle. The alternatives are set to the pthread
#     flavour (Debian's priorities already prefer it: pthread 100, openmp 95,
#     serial 90; this only matters where someone chose another by hand).
#     Also the packages for the run artifacts, the service, the Slurm test and
#     the Python-side checks (see the list below).
#  2. gotch v0.7.0, the libtorch binding, patched for Debian's libtorch 1.13.1
#     into third_party/gotch (git-ignored; go.mod replaces the module with it).
#     gotch's sources are never committed: they come from the Go module proxy
#     at setup time and are patched here.
#
# The gotch patch has two parts (see ../shared/notes/gotch-on-debian.md):
#  a. libtch/lib.go gets CPU-only cgo flags for the system libtorch (new C++
#     ABI, C++17, the torch C++ API include path, no CUDA libraries);
#  b. the generated wrappers for the ops that libtorch 1.13 removed or
#     re-signed get a body that raises "operation unavailable in this
#     libtorch", which PROTECT turns into the library's last-error string, so
#     the Go side returns an error if anyone calls them.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if ! command -v go >/dev/null 2>&1; then
  export PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || { echo "setup: Go toolchain not found (looked on PATH and in /usr/local/go/bin)" >&2; exit 1; }

log() { echo "setup: $*" >&2; }

# ---------------------------------------------------------------- 1. apt
# slurm-wlm and munge: the Slurm end-to-end test. libosmesa6-dev (MuJoCo's
# offscreen renderer without a display) and ffmpeg (video; ffprobe in tests).
# protobuf-compiler and libprotobuf-dev (Google's well-known .proto files):
# `make proto`, the generated-code staleness tests, TensorBoard's definitions
# in tests. Debian's python3-numpy, python3-torch and python3-protobuf (for
# /usr/bin/python3): the independent Python checks of policies and TensorBoard
# files, and the Python PPO that proves `hyperctl serve` end to end.
# chromium: the browser test of `hyperctl dashboard` (headless, driven by
# chromedp; experiment/dashboard).
debs=(libtorch-dev libmujoco-dev libopenblas0-pthread slurm-wlm munge libosmesa6-dev ffmpeg protobuf-compiler libprotobuf-dev python3-numpy python3-torch python3-protobuf chromium)
missing=()
for p in "${debs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  log "installing Debian packages: ${missing[*]} (this takes a few minutes once)"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
test -f /usr/include/torch/csrc/api/include/torch/torch.h || { echo "setup: libtorch headers missing after install (/usr/include/torch/csrc/api/include/torch/torch.h)" >&2; exit 1; }
test -f /usr/include/mujoco/mujoco.h || { echo "setup: MuJoCo header missing after install (/usr/include/mujoco/mujoco.h)" >&2; exit 1; }

# The BLAS alternatives: the pthread OpenBLAS (see 1. above).
multiarch="$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)"
libdir="/usr/lib/${multiarch}"
for lib in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
  want="${libdir}/openblas-pthread/${lib}"
  test -e "$want" || { echo "setup: ${want} missing after installing libopenblas0-pthread" >&2; exit 1; }
  if [ "$(readlink -f "${libdir}/${lib}")" != "$(readlink -f "$want")" ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    log "pointing the ${lib} alternative at ${want}"
    $sudo update-alternatives --quiet --set "${lib}-${multiarch}" "$want"
    [ "$(readlink -f "${libdir}/${lib}")" = "$(readlink -f "$want")" ] || { echo "setup: ${libdir}/${lib} does not resolve to ${want} after update-alternatives" >&2; exit 1; }
  fi
done

# ---------------------------------------------------------------- 2. gotch
gotch_version="v0.7.0"
dest="third_party/gotch"
# The stamp records the version and this script's hash: editing the patch
# below re-runs it, anything else is a no-op.
stamp_want="gotch ${gotch_version} $(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
if [ -f "$dest/.hyperctl-stamp" ] && [ "$(cat "$dest/.hyperctl-stamp")" = "$stamp_want" ]; then
  exit 0
fi

log "preparing patched gotch ${gotch_version} in ${dest}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
src="$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "github.com/sugarme/gotch@${gotch_version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -n "$src" ] && [ -d "$src" ] || { echo "setup: could not download github.com/sugarme/gotch@${gotch_version} from the Go module proxy" >&2; exit 1; }

stage="$tmp/gotch"
cp -r "$src" "$stage"
chmod -R u+w "$stage"
# Examples and the code generator are not part of the library we build.
rm -rf "$stage/example" "$stage/gen"

# (a) CPU-only cgo flags for Debian's system libtorch.
cat > "$stage/libtch/lib.go" <<'EOF'
package libtch

// Patched by hyperctl's scripts/setup.sh for Debian's libtorch 1.13.1 (CPU).

// #cgo LDFLAGS: -lstdc++ -ltorch -lc10 -ltorch_cpu
// #cgo CFLAGS: -I${SRCDIR} -O3 -Wall -Wno-unused-variable -Wno-deprecated-declarations -Wno-c++11-narrowing -Wno-sign-compare -Wno-unused-function -D_GLIBCXX_USE_CXX11_ABI=1
// #cgo CXXFLAGS: -std=c++17 -I${SRCDIR} -O2 -I/usr/include/torch/csrc/api/include -w
import "C"
EOF

# (b) Stub the wrappers of ops libtorch 1.13 removed or re-signed.
unavailable="atg__cat atg__cat_out atg__det_lu_based_helper atg__det_lu_based_helper_backward_helper atg__linalg_inv_out_helper_ atg__linalg_qr_helper atg__s_where atg__segment_reduce_backward atg__solve_helper atg__weight_norm_cuda_interface atg__weight_norm_cuda_interface_backward atg_arange_start_out atg_bernoulli_out atg_binary_cross_entropy_with_logits_backward atg_col2im_backward atg_col2im_backward_grad_input atg_eig atg_eig_e atg_grid_sampler_3d_backward atg_im2col_backward atg_im2col_backward_grad_input atg_kl_div_backward atg_l1_loss_backward atg_l1_loss_backward_grad_input atg_l1_loss_out atg_lstsq atg_lstsq_x atg_matrix_rank atg_matrix_rank_tol atg_max_unpool2d_backward atg_max_unpool2d_backward_grad_input atg_max_unpool3d_backward atg_max_unpool3d_backward_grad_input atg_nansum atg_normal atg_segment_reduce atg_solve atg_solve_solution"
gen="$stage/libtch/torch_api_generated.cpp.h"
UNAVAILABLE="$unavailable" perl -0777 -i -pe '
  my $n = 0;
  for my $f (split / /, $ENV{UNAVAILABLE}) {
    $n += s/(\n\w[^\n]*\b\Q$f\E\([^\n]*\{\n  PROTECT\().*?(\n  \)\n\})/$1\n    throw std::runtime_error("operation unavailable in this libtorch");$2/s;
  }
  my $want = scalar(split / /, $ENV{UNAVAILABLE});
  die "setup: patched $n of $want gotch wrappers\n" unless $n == $want;
' "$gen"

echo "$stamp_want" > "$stage/.hyperctl-stamp"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest"
mv "$stage" "$dest"
log "gotch ready in ${dest}"
