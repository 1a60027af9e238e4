// shim.cpp: one PPO minibatch step in libtorch's C++ API (ATen), called from
// Go (learner.go) once per phase -- forward, backward, Adam -- instead of
// once per libtorch op. libtorch still computes the networks; the shim only
// removes the per-op cgo crossings, handle bookkeeping and per-minibatch
// parameter views (issue 18).
//
// The backward pass is written out layer by layer with the same ATen kernels
// autograd runs for addmm and the activation (mm for the weight and input
// gradients, a row sum for the bias, tanh_backward / threshold_backward), so
// it computes what autograd computed before, without building a graph.
// TestGradientMatchesAutograd checks it against autograd.
//
// The matrix products call the BLAS's sgemm_ directly (atenGemm), with
// the arguments ATen's addmm/mm would pass it for the same operands, so
// they give ATen's bits (TestShimGemmMatchesATen) without the dispatcher,
// and every activation, scratch and input buffer of a row block is
// allocated once per row count (Half), not per call. When ATen runs its
// AVX2 kernels, tanh and its backward are computed here too, with the
// operations ATen's AVX2 kernels perform (Sleef's 8-lane tanh; d·(1 − h²)
// with a fused multiply-add), so they give ATen's bits
// (TestShimOpsMatchATen) without the dispatcher, and so are the bias
// gradients' row sums, in ATen's AVX2 summation order (colSums). The
// gradient norm, ReLU and every op on other ATen kernels stay ATen's.
//
// With two halves (ppo_shim_set_halves; ppo.update_threads = 2), the
// update's forward and backward run rows [0, B−B/2) of a minibatch on the
// calling thread and rows [B−B/2, B) on the shim's worker thread, each with
// its own activations and its own gradient vector; the two gradient vectors
// are then added, always as g(first half) + g(second half), before one
// clipping + Adam step. The loss and the gradient are those of the whole
// minibatch; only float32 summation order changes: every weight and bias
// gradient is a sum over the minibatch's rows, computed as two partial sums
// (each by the BLAS kernel or ATen's reduction) added once. Inference
// (rollout, bootstrap values, evaluation) never splits.
//
// BLAS. libtorch's mm goes to the system BLAS (Debian: the libblas.so.3
// alternative, OpenBLAS; scripts/setup.sh installs the pthread flavour).
// The process forces OpenBLAS to one thread at start (OpenBLAS below):
// its own threads only slow these small products and change nothing in the
// results. Two halves call sgemm from two threads at once, which the
// pthread flavour (built with threading, so its buffers are locked) passed
// the concurrency checks of results/ppo/README.md for, but NOT Debian's
// serial flavour (built SINGLE_THREADED without USE_LOCKING): its concurrent
// sgemm calls return wrong results (results/ppo/README.md), so
// ppo_shim_set_halves refuses two halves when the loaded BLAS is such a
// build, with an error naming it.
#include "shim.h"

#include <ATen/ATen.h>
#include <ATen/Version.h>

#include <dlfcn.h>
#include <immintrin.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Layer {
  int64_t in, out;
  at::Tensor W, b;  // views of theta
};

// Grads are one half's views of a flat gradient vector.
struct Grads {
  at::Tensor g;                    // the flat vector
  std::vector<at::Tensor> gW, gb;  // actor layers, then critic layers
};

// Half is one row block's working state. Its buffers are allocated for a
// number of rows (shape) and kept while the row count stays: the rollout's
// inference runs on num_envs rows step after step, the update on
// minibatch rows (halved with two halves), so they are reshaped about
// twice per iteration, not per call.
struct Half {
  Grads gr;
  at::Tensor x;                    // the inputs
  std::vector<at::Tensor> hA, hC;  // post-activation outputs of the hidden layers
  at::Tensor mu, v;                // network outputs
  at::Tensor dmu, dv;              // output gradients (copied in)
  std::vector<at::Tensor> dHA, dYA, dHC, dYC;  // backward scratch, one per hidden layer
  int64_t row0 = 0, rows = 0, shaped = -1;
};

// Worker runs one job at a time on its own thread. It spins briefly for the
// next job (the jobs of one minibatch follow each other within microseconds)
// and then sleeps, so it costs no CPU between updates.
class Worker {
 public:
  Worker() : th_([this] { loop(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      quit_ = true;
      posted_.fetch_add(1);
    }
    cv_.notify_all();
    th_.join();
  }
  void post(std::function<void()> f) {
    job_ = std::move(f);
    err_.clear();
    {
      std::lock_guard<std::mutex> lk(mu_);
      posted_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_one();
  }
  std::string wait() {
    uint64_t want = posted_.load(std::memory_order_relaxed);
    while (done_.load(std::memory_order_acquire) != want) _mm_pause();
    return err_;
  }

 private:
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      int spins = 0;
      while (posted_.load(std::memory_order_acquire) == seen && spins < 200000) {
        _mm_pause();
        spins++;
      }
      if (posted_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return posted_.load() != seen; });
      }
      seen = posted_.load(std::memory_order_acquire);
      if (quit_) return;
      try {
        job_();
      } catch (const std::exception &e) {
        err_ = e.what();
      } catch (...) {
        err_ = "unknown exception";
      }
      done_.store(seen, std::memory_order_release);
    }
  }
  std::function<void()> job_;
  std::string err_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<uint64_t> posted_{0}, done_{0};
  bool quit_ = false;
  std::thread th_;
};

// lerp is ATen's scalar lerp formula.
inline float lerp(float a, float b, float w) { return w < 0.5f ? a + w * (b - a) : b - (b - a) * (1 - w); }

// adamOne is one element of the fused clipping + Adam pass.
inline void adamOne(float *pg, float *pm, float *pv, float *pt, bool scale, float cf, float w1, float w2, float c1,
                    float c2) {
  float gi = scale ? *pg * cf : *pg;
  *pg = gi;
  float mi = lerp(*pm, gi, w1);
  float vi = lerp(*pv, gi * gi, w2);
  *pm = mi;
  *pv = vi;
  *pt = *pt + mi / (std::sqrt(vi) * c1 + c2);
}

// vlerp is lerp on 8 lanes, the same float32 operations (no fused
// multiply-add), so lanes and the scalar tail round alike.
__attribute__((target("avx"))) inline __m256 vlerp(__m256 a, __m256 b, float w) {
  if (w < 0.5f) return _mm256_add_ps(a, _mm256_mul_ps(_mm256_set1_ps(w), _mm256_sub_ps(b, a)));
  return _mm256_sub_ps(b, _mm256_mul_ps(_mm256_sub_ps(b, a), _mm256_set1_ps(1 - w)));
}

// adamPassAVX is adamPass 8 elements at a time; square root and division
// are correctly rounded in both, so the results are bit-identical.
__attribute__((target("avx"))) void adamPassAVX(float *pg, float *pm, float *pv, float *pt, int64_t n, bool scale,
                                                float cf, float w1, float w2, float c1, float c2) {
  int64_t i = 0;
  const __m256 vcf = _mm256_set1_ps(cf), vc1 = _mm256_set1_ps(c1), vc2 = _mm256_set1_ps(c2);
  for (; i + 8 <= n; i += 8) {
    __m256 g = _mm256_loadu_ps(pg + i);
    if (scale) g = _mm256_mul_ps(g, vcf);
    _mm256_storeu_ps(pg + i, g);
    __m256 m = vlerp(_mm256_loadu_ps(pm + i), g, w1);
    __m256 v = vlerp(_mm256_loadu_ps(pv + i), _mm256_mul_ps(g, g), w2);
    _mm256_storeu_ps(pm + i, m);
    _mm256_storeu_ps(pv + i, v);
    __m256 d = _mm256_add_ps(_mm256_mul_ps(_mm256_sqrt_ps(v), vc1), vc2);
    _mm256_storeu_ps(pt + i, _mm256_add_ps(_mm256_loadu_ps(pt + i), _mm256_div_ps(m, d)));
  }
  for (; i < n; i++) adamOne(pg + i, pm + i, pv + i, pt + i, scale, cf, w1, w2, c1, c2);
}

// adamPass is the fused clipping + Adam pass (see ppo_shim_step); it uses
// the AVX version when the CPU has AVX.
void adamPass(float *pg, float *pm, float *pv, float *pt, int64_t n, bool scale, float cf, float w1, float w2, float c1,
              float c2) {
  static const bool avx = __builtin_cpu_supports("avx");
  if (avx) {
    adamPassAVX(pg, pm, pv, pt, n, scale, cf, w1, w2, c1, c2);
    return;
  }
  for (int64_t i = 0; i < n; i++) adamOne(pg + i, pm + i, pv + i, pt + i, scale, cf, w1, w2, c1, c2);
}

// Sleef_tanhf8_u10 is Sleef's 8-lane float tanh, the function ATen's AVX2
// kernels run for tanh on floats (Vectorized<float>::tanh, which vml's
// vtanh maps over a contiguous buffer).
extern "C" __m256 Sleef_tanhf8_u10(__m256);

// sleefTanh is ATen's AVX2 tanh_ on a contiguous float buffer without the
// dispatcher: Sleef on 8 lanes at a time and the tail through a
// zero-padded vector, as vec::map does, so every element gets the bits
// at::tanh_ gives it (TestShimOpsMatchATen compares them).
__attribute__((target("avx2"))) void sleefTanh(float *p, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(p + i, Sleef_tanhf8_u10(_mm256_loadu_ps(p + i)));
  if (i < n) {
    alignas(32) float buf[8] = {0};
    std::memcpy(buf, p + i, sizeof(float) * (n - i));
    _mm256_store_ps(buf, Sleef_tanhf8_u10(_mm256_load_ps(buf)));
    std::memcpy(p + i, buf, sizeof(float) * (n - i));
  }
}

// tanhBack is ATen's AVX2 tanh_backward_out on contiguous float buffers
// without the dispatcher: out = d·(1 − h²), with 1 − h² as one fused
// multiply-add, which is what Debian's build of ATen's AVX2 kernel computes
// (its vector loop and its scalar tail alike: a separate multiply and
// subtract gave other bits in about 3 of 10 values), so every element gets
// ATen's bits (TestShimOpsMatchATen compares them).
__attribute__((target("avx2,fma"))) void tanhBack(float *out, const float *d, const float *h, int64_t n) {
  int64_t i = 0;
  const __m256 one = _mm256_set1_ps(1);
  for (; i + 8 <= n; i += 8) {
    __m256 b = _mm256_loadu_ps(h + i);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_loadu_ps(d + i), _mm256_fnmadd_ps(b, b, one)));
  }
  for (; i < n; i++) out[i] = d[i] * __builtin_fmaf(-h[i], h[i], 1.0f);
}

// The bias gradients' row sums as ATen 1.13's AVX2 sum over dimension 0
// of a contiguous rows × cols float matrix computes them (cascade_sum in
// ATen's SumKernel.cpp: the output zero-filled, then per column a sum over
// the rows in blocks of 16 carried through four levels, multi_row_sum, or,
// for the columns left over from groups of 32 (of 4 when cols < 8) and for
// a single column, four interleaved partial sums first, row_sum), so they
// give ATen's bits (TestShimOpsMatchATen compares them at 17 row counts
// × 16 widths) without the dispatcher and the TensorIterator.

// ceilLog2 is ATen's utils::CeilLog2.
inline int64_t ceilLog2(int64_t x) { return x <= 2 ? 1 : 64 - __builtin_clzll(static_cast<uint64_t>(x - 1)); }

// multiRowSum is ATen's multi_row_sum: N lanes of W adjacent floats each
// (lane k at column offset k·W from in), summed over size rows rs floats
// apart; ld(i, k, w) loads row i's element w of lane k.
template <int W, int N, typename Load>
inline void multiRowSum(int64_t size, Load ld, float out[N][W]) {
  constexpr int L = 4;
  const int64_t lp = std::max<int64_t>(4, ceilLog2(size) / L);
  const int64_t step = int64_t(1) << lp, mask = step - 1;
  float acc[L][N][W] = {};
  int64_t i = 0;
  while (i + step <= size) {
    for (int64_t j = 0; j < step; ++j, ++i)
      for (int k = 0; k < N; k++)
        for (int w = 0; w < W; w++) acc[0][k][w] += ld(i, k, w);
    for (int j = 1; j < L; ++j) {
      for (int k = 0; k < N; k++)
        for (int w = 0; w < W; w++) {
          acc[j][k][w] += acc[j - 1][k][w];
          acc[j - 1][k][w] = 0;
        }
      if ((i & (mask << (j * lp))) != 0) break;
    }
  }
  for (; i < size; ++i)
    for (int k = 0; k < N; k++)
      for (int w = 0; w < W; w++) acc[0][k][w] += ld(i, k, w);
  for (int j = 1; j < L; ++j)
    for (int k = 0; k < N; k++)
      for (int w = 0; w < W; w++) acc[0][k][w] += acc[j][k][w];
  for (int k = 0; k < N; k++)
    for (int w = 0; w < W; w++) out[k][w] = acc[0][k][w];
}

// rowSum is ATen's row_sum on W adjacent floats: the rows (rs floats
// apart) as four interleaved partial sums (multiRowSum), the rows left
// over added to the first, then the four added in order.
template <int W>
inline void rowSum(const float *in, int64_t rs, int64_t size, float out[W]) {
  const int64_t quarter = size / 4;
  float part[4][W];
  multiRowSum<W, 4>(quarter, [&](int64_t i, int k, int w) { return in[(i * 4 + k) * rs + w]; }, part);
  for (int64_t i = quarter * 4; i < size; ++i)
    for (int w = 0; w < W; w++) part[0][w] += in[i * rs + w];
  for (int k = 1; k < 4; k++)
    for (int w = 0; w < W; w++) part[0][w] += part[k][w];
  for (int w = 0; w < W; w++) out[w] = part[0][w];
}

// colSums writes the column sums of the contiguous rows × cols matrix in
// into out, as at::sum_out(out, in, {0}) on ATen's AVX2 kernels.
void colSums(const float *in, int64_t rows, int64_t cols, float *out) {
  if (cols == 1) {
    if (rows >= 8) {  // vectorized_inner_sum: vectors of 8 consecutive values
      const int64_t nv = rows / 8;
      float v[8];
      rowSum<8>(in, 8, nv, v);
      float f = 0;
      for (int64_t k = nv * 8; k < rows; k++) f += in[k];
      for (int k = 0; k < 8; k++) f += v[k];
      out[0] = 0.0f + f;
    } else {  // scalar_inner_sum
      float v[1];
      rowSum<1>(in, 1, rows, v);
      out[0] = 0.0f + v[0];
    }
    return;
  }
  int64_t j = 0;
  if (cols >= 8) {  // vectorized_outer_sum
    for (; j + 32 <= cols; j += 32) {
      float sum[4][8];
      multiRowSum<8, 4>(rows, [&](int64_t i, int k, int w) { return in[i * cols + j + k * 8 + w]; }, sum);
      for (int k = 0; k < 4; k++)
        for (int w = 0; w < 8; w++) out[j + k * 8 + w] = 0.0f + sum[k][w];
    }
    for (; j + 8 <= cols; j += 8) {
      float sum[8];
      rowSum<8>(in + j, cols, rows, sum);
      for (int w = 0; w < 8; w++) out[j + w] = 0.0f + sum[w];
    }
  } else {  // scalar_outer_sum
    for (; j + 3 < cols; j += 4) {
      float sum[4][1];
      multiRowSum<1, 4>(rows, [&](int64_t i, int k, int) { return in[i * cols + j + k]; }, sum);
      for (int k = 0; k < 4; k++) out[j + k] = 0.0f + sum[k][0];
    }
  }
  for (; j < cols; ++j) {
    float sum[1];
    rowSum<1>(in + j, cols, rows, sum);
    out[j] = 0.0f + sum[0];
  }
}

// atenCapability is at::show_config's "CPU capability usage" ("AVX2",
// "AVX512", "NO AVX"; "" when it does not say). Asking fixes ATen's
// choice, which ATen otherwise makes at its first vectorised op, from
// ATEN_CPU_CAPABILITY.
std::string atenCapability() {
  const std::string cfg = at::show_config(), key = "CPU capability usage: ";
  size_t at = cfg.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return cfg.substr(at, cfg.find('\n', at) - at);
}

// atenAVX2 reports whether ATen runs its AVX2 kernels, asked once: only
// then is sleefTanh ATen's tanh (its AVX-512 kernels run Sleef's 16-lane
// tanh, its default ones the C library's).
bool atenAVX2() {
  static const bool v = __builtin_cpu_supports("avx2") && atenCapability() == "AVX2";
  return v;
}

// sgemm_ is the BLAS's Fortran sgemm, the entry ATen's cpublas::gemm calls
// for float products on CPU.
extern "C" void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                       const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
                       const float *beta, float *c, const int *ldc);

// Mat is a float matrix in memory: rows × cols with strides s0 (between
// rows) and s1 (between columns), as an ATen tensor's sizes and strides.
struct Mat {
  float *p;
  int64_t rows, cols, s0, s1;
  // t is the transposed view (ATen's t()).
  Mat t() const { return {p, cols, rows, s1, s0}; }
};

// contig is a contiguous rows × cols matrix with ATen's contiguous strides.
inline Mat contig(float *p, int64_t rows, int64_t cols) { return {p, rows, cols, std::max<int64_t>(cols, 1), 1}; }

inline Mat matOf(const at::Tensor &t) { return {t.data_ptr<float>(), t.size(0), t.size(1), t.stride(0), t.stride(1)}; }

// atenGemm computes c = beta·c + m1·m2 (beta 0 or 1) with the one sgemm_
// call ATen 1.13's addmm/mm (addmm_impl_cpu_ and cpublas::gemm: the
// choice of transposes from the strides, normalize_last_dims,
// use_blas_gemm) makes for these operands, so the result is the same bits
// as at::addmm / at::mm_out / at::mm, without the dispatcher, the output
// allocation and the bias broadcast's tensor copy. It returns false, having
// done nothing, when ATen would take another path (a copy of an operand,
// its own gemm kernel); the caller then calls ATen. TestShimGemmMatchesATen
// compares it bit for bit with ATen over the shapes the networks use.
bool atenGemm(const Mat &c0, const Mat &m10, const Mat &m20, float beta) {
  Mat c = c0, m1 = m10, m2 = m20;
  if (c.rows == 0 || c.cols == 0 || m1.cols == 0) return false;
  bool tc;
  if (c.s0 == 1 && (c.cols == 1 || c.s1 >= std::max<int64_t>(1, c.rows))) {
    tc = false;
  } else if (c.s1 == 1 && (c.rows == 1 || c.s0 >= std::max<int64_t>(1, c.cols))) {
    std::swap(m1, m2);
    tc = true;
  } else {
    return false;
  }
  // Sizes and strides indexed as ATen's (dimension 0, 1).
  auto sz = [](const Mat &x, int d) { return d == 0 ? x.rows : x.cols; };
  auto st = [](const Mat &x, int d) { return d == 0 ? x.s0 : x.s1; };
  int64_t m = sz(c, tc ? 1 : 0), n = sz(c, tc ? 0 : 1), k = sz(m1, tc ? 0 : 1);
  bool ta, tb;
  if (st(m1, tc ? 1 : 0) == 1 && st(m1, tc ? 0 : 1) >= std::max<int64_t>(1, m)) {
    ta = false;
  } else if (st(m1, tc ? 0 : 1) == 1 && st(m1, tc ? 1 : 0) >= std::max<int64_t>(1, k)) {
    ta = true;
  } else {
    return false;
  }
  if (st(m2, tc ? 1 : 0) == 1 && st(m2, tc ? 0 : 1) >= std::max<int64_t>(1, k)) {
    tb = false;
  } else if (st(m2, tc ? 0 : 1) == 1 && st(m2, tc ? 1 : 0) >= std::max<int64_t>(1, n)) {
    tb = true;
  } else {
    return false;
  }
  int64_t lda = st(m1, (ta == tc) ? 1 : 0), ldb = st(m2, (tb == tc) ? 1 : 0), ldc = st(c, tc ? 0 : 1);
  // cpublas::internal::normalize_last_dims
  if (n == 1) ldc = m;
  if (ta) {
    if (m == 1) lda = k;
  } else if (k == 1) {
    lda = m;
  }
  if (tb) {
    if (k == 1) ldb = n;
  } else if (n == 1) {
    ldb = k;
  }
  // cpublas's use_blas_gemm
  const int64_t lim = 2147483647;
  if (m > lim || n > lim || k > lim || lda > lim || ldb > lim || ldc > lim) return false;
  if (lda < std::max<int64_t>(1, ta ? k : m) || ldb < std::max<int64_t>(1, tb ? n : k) || ldc < std::max<int64_t>(1, m))
    return false;
  const char tA = ta ? 't' : 'n', tB = tb ? 't' : 'n';
  const int mi = m, ni = n, ki = k, ldai = lda, ldbi = ldb, ldci = ldc;
  const float one = 1;
  sgemm_(&tA, &tB, &mi, &ni, &ki, &one, m1.p, &ldai, m2.p, &ldbi, &beta, c.p, &ldci);
  return true;
}

char *dupErr(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// OpenBLAS holds the loaded OpenBLAS's entry points, looked up once; each is
// null when the BLAS is not OpenBLAS.
struct OpenBLAS {
  void (*setThreads)(int);
  int (*threads)();
  char *(*config)();
  OpenBLAS()
      : setThreads(reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))),
        threads(reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"))),
        config(reinterpret_cast<char *(*)()>(dlsym(RTLD_DEFAULT, "openblas_get_config"))) {
    // At process start (before Go's main), whatever OPENBLAS_NUM_THREADS
    // says: OpenBLAS's own threads made these small products slower and
    // change nothing in the results.
    if (setThreads) setThreads(1);
  }
};

const OpenBLAS openblas;

}  // namespace

struct ppo_shim {
  at::Tensor theta, m, v;
  at::Tensor g2, d;  // Adam scratch
  std::vector<Layer> actor, critic;
  at::Tensor logStd;
  int64_t lsOff = 0, actDim = 0, obsDim = 0, total = 0;
  bool relu = false;
  std::vector<int64_t> desc;  // layer descriptors (for gradient views)
  int nA = 0, nC = 0;
  Half half[2];
  int halves = 1;
  std::unique_ptr<Worker> worker;

  Grads views(const at::Tensor &g) const {
    Grads r;
    r.g = g;
    for (int k = 0; k < nA + nC; k++) {
      const int64_t *q = &desc[4 * k];
      r.gW.push_back(g.narrow(0, q[0], q[1] * q[2]).view({q[1], q[2]}));
      r.gb.push_back(g.narrow(0, q[3], q[2]));
    }
    return r;
  }

  // act applies the activation in place (y is contiguous): tanh through
  // sleefTanh when ATen runs AVX2 (its bits without the dispatcher), else
  // ATen's op.
  void act(at::Tensor &y) const {
    if (relu) {
      y.relu_();
    } else if (atenAVX2()) {
      sleefTanh(y.data_ptr<float>(), y.numel());
    } else {
      y.tanh_();
    }
  }

  // shape allocates h's buffers for h.rows rows, unless they have that
  // shape already.
  void shape(Half &h) const {
    if (h.shaped == h.rows) return;
    auto mk = [&](int64_t cols) { return at::empty({h.rows, cols}, at::kFloat); };
    h.x = mk(obsDim);
    h.mu = mk(actDim);
    h.v = mk(1);
    h.dmu = mk(actDim);
    h.dv = mk(1);
    for (auto *set : {&h.hA, &h.hC, &h.dHA, &h.dYA, &h.dHC, &h.dYC}) set->clear();
    for (size_t k = 0; k + 1 < actor.size(); k++) {
      h.hA.push_back(mk(actor[k].out));
      h.dHA.push_back(mk(actor[k].out));
      h.dYA.push_back(mk(actor[k].out));
    }
    for (size_t k = 0; k + 1 < critic.size(); k++) {
      h.hC.push_back(mk(critic[k].out));
      h.dHC.push_back(mk(critic[k].out));
      h.dYC.push_back(mk(critic[k].out));
    }
    h.shaped = h.rows;
  }

  // mlp runs the layers ls on x into hs (hidden outputs) and out: each
  // layer is ATen's addmm(b, h, W) (the bias broadcast copied into the
  // output, then one sgemm with beta 1, atenGemm) and the activation in
  // place.
  void mlp(const std::vector<Layer> &ls, const at::Tensor &x, std::vector<at::Tensor> &hs, at::Tensor &out) const {
    const at::Tensor *in = &x;
    for (size_t k = 0; k < ls.size(); k++) {
      at::Tensor &y = k + 1 < ls.size() ? hs[k] : out;
      const int64_t rows = y.size(0), n = ls[k].out;
      float *yp = y.data_ptr<float>();
      const float *bp = ls[k].b.data_ptr<float>();
      for (int64_t r = 0; r < rows; r++) std::memcpy(yp + r * n, bp, sizeof(float) * n);
      if (!atenGemm(matOf(y), matOf(*in), matOf(ls[k].W), 1)) at::addmm_out(y, ls[k].b, *in, ls[k].W);
      if (k + 1 < ls.size()) act(y);
      in = &y;
    }
  }

  void forwardHalf(Half &h, const float *x, float *mu, float *v) {
    shape(h);
    std::memcpy(h.x.data_ptr<float>(), x + h.row0 * obsDim, sizeof(float) * h.rows * obsDim);
    if (mu) {
      mlp(actor, h.x, h.hA, h.mu);
      std::memcpy(mu + h.row0 * actDim, h.mu.data_ptr<float>(), sizeof(float) * h.rows * actDim);
    }
    if (v) {
      mlp(critic, h.x, h.hC, h.v);
      std::memcpy(v + h.row0, h.v.data_ptr<float>(), sizeof(float) * h.rows);
    }
  }

  // backMLP writes the gradients of layers [first, first+ls.size()) of gr
  // from the output gradient dY: per layer, ATen's mm_out(gW, inᵀ, dY)
  // and, below the top layer, mm(dY, Wᵀ) (both through atenGemm), a row sum
  // for the bias and the activation's backward, into h's scratch buffers.
  void backMLP(const std::vector<Layer> &ls, const at::Tensor &x, const std::vector<at::Tensor> &hs,
               std::vector<at::Tensor> &dH, std::vector<at::Tensor> &dYs, const at::Tensor &dYout, Grads &gr,
               int first) const {
    const at::Tensor *dY = &dYout;
    for (int k = static_cast<int>(ls.size()) - 1; k >= 0; k--) {
      const at::Tensor &in = k == 0 ? x : hs[k - 1];
      at::Tensor &gW = gr.gW[first + k];
      if (!atenGemm(matOf(gW), matOf(in).t(), matOf(*dY), 0)) at::mm_out(gW, in.t(), *dY);
      if (atenAVX2()) {
        colSums(dY->data_ptr<float>(), dY->size(0), dY->size(1), gr.gb[first + k].data_ptr<float>());
      } else {
        at::sum_out(gr.gb[first + k], *dY, {0});
      }
      if (k > 0) {
        at::Tensor &d = dH[k - 1];
        if (!atenGemm(matOf(d), matOf(*dY), matOf(ls[k].W).t(), 0)) at::mm_out(d, *dY, ls[k].W.t());
        at::Tensor &next = dYs[k - 1];
        if (relu) {
          at::threshold_backward_out(next, d, in, 0);
        } else if (atenAVX2()) {
          tanhBack(next.data_ptr<float>(), d.data_ptr<float>(), in.data_ptr<float>(), next.numel());
        } else {
          at::tanh_backward_out(next, d, in);
        }
        dY = &next;
      }
    }
  }

  void backwardHalf(Half &h, const float *gmu, const float *gv) {
    std::memcpy(h.dmu.data_ptr<float>(), gmu + h.row0 * actDim, sizeof(float) * h.rows * actDim);
    std::memcpy(h.dv.data_ptr<float>(), gv + h.row0, sizeof(float) * h.rows);
    backMLP(actor, h.x, h.hA, h.dHA, h.dYA, h.dmu, h.gr, 0);
    backMLP(critic, h.x, h.hC, h.dHC, h.dYC, h.dv, h.gr, nA);
  }
};

extern "C" {

char *ppo_shim_new(void *theta, void *m, void *v, const int64_t *desc, int nA, int nC, int relu, ppo_shim **out) {
  try {
    auto s = std::make_unique<ppo_shim>();
    s->theta = *static_cast<at::Tensor *>(theta);
    s->m = *static_cast<at::Tensor *>(m);
    s->v = *static_cast<at::Tensor *>(v);
    if (!s->theta.is_contiguous() || s->theta.scalar_type() != at::kFloat || s->theta.dim() != 1)
      return dupErr("shim: theta must be a contiguous 1-D float32 tensor");
    s->nA = nA;
    s->nC = nC;
    s->relu = relu != 0;
    s->desc.assign(desc, desc + 4 * (nA + nC));
    for (int k = 0; k < nA + nC; k++) {
      const int64_t *q = &desc[4 * k];
      Layer ly{q[1], q[2], s->theta.narrow(0, q[0], q[1] * q[2]).view({q[1], q[2]}), s->theta.narrow(0, q[3], q[2])};
      (k < nA ? s->actor : s->critic).push_back(ly);
    }
    s->lsOff = desc[4 * (nA + nC)];
    s->actDim = desc[4 * (nA + nC) + 1];
    s->total = desc[4 * (nA + nC) + 2];
    if (s->theta.numel() != s->total) return dupErr("shim: theta length differs from the layout");
    s->obsDim = s->actor[0].in;
    s->logStd = s->theta.narrow(0, s->lsOff, s->actDim);
    s->g2 = at::empty({s->total}, at::kFloat);
    s->d = at::empty({s->total}, at::kFloat);
    s->half[0].gr = s->views(at::zeros({s->total}, at::kFloat));
    *out = s.release();
    return nullptr;
  } catch (const std::exception &e) {
    return dupErr(e.what());
  }
}

void ppo_shim_free(ppo_shim *s) { delete s; }

// blasThreadUnsafe returns why the loaded BLAS must not be called from two
// threads at once, or "" when it may. An OpenBLAS built SINGLE_THREADED
// without USE_LOCKING (Debian's libopenblas0-serial) shares its buffers
// between callers: concurrent sgemm calls were measured to return wrong
// results (results/ppo/README.md). OpenBLAS says which build it is through
// openblas_get_config; another BLAS (the reference one) has no shared state.
static std::string blasThreadUnsafe() {
  if (!openblas.config) return "";
  std::string c = openblas.config();
  if (c.find("SINGLE_THREADED") == std::string::npos) return "";
  Dl_info info{};
  std::string lib = dladdr(reinterpret_cast<void *>(openblas.config), &info) && info.dli_fname ? info.dli_fname : "libopenblas.so.0";
  if (char *real = realpath(lib.c_str(), nullptr)) {  // through the alternatives' symlinks
    if (lib != real) lib += " = " + std::string(real);
    std::free(real);
  }
  return "two row blocks need a BLAS that is safe to call from two threads; the loaded one, " +
         lib + " (\"" + c +
         "\"), is a serial OpenBLAS without USE_LOCKING, whose concurrent sgemm calls return wrong results: "
         "install Debian's libopenblas0-pthread (scripts/setup.sh) or set ppo.update_threads = 1";
}

char *ppo_shim_set_halves(ppo_shim *s, int halves) {
  try {
    if (halves == 2) {
      static const std::string unsafe = blasThreadUnsafe();
      if (!unsafe.empty()) return dupErr(unsafe.c_str());
      if (!s->worker) s->worker = std::make_unique<Worker>();
      // The second half never writes the log std's gradient (it is not a
      // per-row term), so its segment stays zero.
      if (!s->half[1].gr.g.defined()) s->half[1].gr = s->views(at::zeros({s->total}, at::kFloat));
      s->halves = 2;
    } else {
      s->worker.reset();
      s->halves = 1;
    }
    return nullptr;
  } catch (const std::exception &e) {
    return dupErr(e.what());
  }
}

char *ppo_shim_forward(ppo_shim *s, const float *x, int64_t B, int split, float *mu, float *v, float *logstd) {
  try {
    int n = (split && s->halves == 2 && B >= 2) ? 2 : 1;
    s->half[0].row0 = 0;
    s->half[0].rows = B - (n == 2 ? B / 2 : 0);
    s->half[1].row0 = s->half[0].rows;
    s->half[1].rows = n == 2 ? B / 2 : 0;
    if (n == 2) s->worker->post([&] { s->forwardHalf(s->half[1], x, mu, v); });
    s->forwardHalf(s->half[0], x, mu, v);
    if (n == 2) {
      std::string e = s->worker->wait();
      if (!e.empty()) return dupErr(e);
    }
    if (logstd) std::memcpy(logstd, s->logStd.data_ptr<float>(), sizeof(float) * s->actDim);
    return nullptr;
  } catch (const std::exception &e) {
    if (s->halves == 2 && s->half[1].rows > 0) s->worker->wait();
    return dupErr(e.what());
  }
}

char *ppo_shim_backward(ppo_shim *s, const float *gmu, const float *gv, const float *gls, double *gnorm) {
  bool two = s->halves == 2 && s->half[1].rows > 0;
  try {
    if (two) s->worker->post([&] { s->backwardHalf(s->half[1], gmu, gv); });
    s->backwardHalf(s->half[0], gmu, gv);
    if (two) {
      std::string e = s->worker->wait();
      if (!e.empty()) return dupErr(e);
      two = false;
      s->half[0].gr.g.add_(s->half[1].gr.g);  // fixed order: first half + second half
    }
    std::memcpy(s->half[0].gr.g.data_ptr<float>() + s->lsOff, gls, sizeof(float) * s->actDim);
    *gnorm = s->half[0].gr.g.norm().item<float>();
    return nullptr;
  } catch (const std::exception &e) {
    if (two) s->worker->wait();
    return dupErr(e.what());
  }
}

char *ppo_shim_step(ppo_shim *s, void *gp, int scale, double clip_coef, double w1, double w2, double c1, double c2) {
  try {
    at::Tensor g = gp ? *static_cast<at::Tensor *>(gp) : s->half[0].gr.g;
    if (!g.is_contiguous() || g.scalar_type() != at::kFloat || g.numel() != s->total)
      return dupErr("shim: the gradient must be a contiguous float32 vector of theta's length");
    // One pass over the flat vector, the same float32 operations in the
    // same order as the ATen ops g.mul_(coef); m.lerp_(g, w1);
    // v.lerp_(g*g, w2); d = sqrt(v)*c1 + c2; theta.addcdiv_(m, d) (lerp as ATen's
    // scalar formula).
    adamPass(g.data_ptr<float>(), s->m.data_ptr<float>(), s->v.data_ptr<float>(), s->theta.data_ptr<float>(), s->total,
             scale != 0, static_cast<float>(clip_coef), static_cast<float>(w1), static_cast<float>(w2),
             static_cast<float>(c1), static_cast<float>(c2));
    return nullptr;
  } catch (const std::exception &e) {
    return dupErr(e.what());
  }
}

void *ppo_shim_grad(ppo_shim *s) { return new at::Tensor(s->half[0].gr.g); }

char *ppo_shim_aten_capability(void) {
  try {
    return dupErr(atenCapability());
  } catch (...) {
    return dupErr("");
  }
}

// ppo_shim_tanh_check compares the shim's tanh (act) with at::tanh, its
// tanh backward (tanhBack) with at::tanh_backward_out and its row sums
// (colSums) with at::sum_out bit for bit, on random and special values
// over lengths (rows) around the vector width and the networks' sizes and
// widths; it returns the number of values compared and of mismatches, and
// whether the shim's own paths ran.
char *ppo_shim_tanh_check(int64_t *compared, int64_t *mismatched, int *direct) {
  try {
    *compared = *mismatched = 0;
    *direct = atenAVX2();
    const float special[] = {0.0f, -0.0f, 1e-8f, -1e-8f, 0.5f, 9.0f, -9.0f, 20.0f, -20.0f, 1e30f, -1e30f};
    for (int64_t n : {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 512, 1000, 4096, 4100, 65536}) {
      at::Tensor x = at::randn({n}, at::kFloat).mul_(3.0);
      float *xp = x.data_ptr<float>();
      for (int64_t i = 0; i < n && i < 11; i++) xp[i * 7 % n] = special[i];
      at::Tensor want = at::tanh(x), got = x.clone().view({n, 1});
      ppo_shim s;
      s.act(got);
      // The backward, through a one-layer network's backMLP: its input
      // gradient's activation backward from the hidden layer's output.
      at::Tensor d = at::randn({n}, at::kFloat), h = want.clone();
      at::Tensor wantB = at::empty({n}, at::kFloat), gotB = at::empty({n}, at::kFloat);
      at::tanh_backward_out(wantB, d, h);
      if (*direct) {
        tanhBack(gotB.data_ptr<float>(), d.data_ptr<float>(), h.data_ptr<float>(), n);
      } else {
        at::tanh_backward_out(gotB, d, h);
      }
      std::vector<std::pair<at::Tensor, at::Tensor>> pairs{{want, got}, {wantB, gotB}};
      // The row sums of an n-row matrix at the networks' widths and around
      // the kernels' group sizes.
      for (int64_t cols : {1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 31, 32, 33, 64, 65, 256}) {
        if (n * cols > 300000) continue;
        at::Tensor m = at::randn({n, cols}, at::kFloat), ws = at::empty({cols}, at::kFloat), gs = at::empty({cols}, at::kFloat);
        at::sum_out(ws, m, {0});
        if (*direct) {
          colSums(m.data_ptr<float>(), n, cols, gs.data_ptr<float>());
        } else {
          at::sum_out(gs, m, {0});
        }
        pairs.emplace_back(ws, gs);
      }
      for (auto &pr : pairs) {
        const float *a = pr.first.data_ptr<float>(), *b = pr.second.data_ptr<float>();
        for (int64_t i = 0; i < pr.first.numel(); i++) {
          (*compared)++;
          if (std::memcmp(a + i, b + i, sizeof(float)) != 0) (*mismatched)++;
        }
      }
    }
    return nullptr;
  } catch (const std::exception &e) {
    return dupErr(e.what());
  }
}

char *ppo_shim_blas(int *threads) {
  *threads = openblas.threads ? openblas.threads() : 0;
  return dupErr(openblas.config ? openblas.config() : "");
}

// ppo_shim_gemm_check compares atenGemm with ATen's own addmm, mm_out and
// mm, bit for bit, over the operand shapes and strides the networks use
// (rows × in inputs, in × out weights as views of a flat vector, their
// transposes), on random values. It returns the number of products
// compared, of those atenGemm declined (ATen then computes them), and of
// mismatches.
char *ppo_shim_gemm_check(int64_t *compared, int64_t *declined, int64_t *mismatched) {
  try {
    *compared = *declined = *mismatched = 0;
    at::Tensor theta = at::randn({140000}, at::kFloat);
    auto same = [](const at::Tensor &a, const at::Tensor &b) {
      return std::memcmp(a.data_ptr<float>(), b.data_ptr<float>(), sizeof(float) * a.numel()) == 0;
    };
    for (int64_t rows : {1, 2, 3, 5, 8, 16, 31, 32, 33, 64, 100}) {
      for (auto io : std::vector<std::pair<int64_t, int64_t>>{
               {17, 64}, {64, 64}, {64, 6}, {64, 1}, {11, 64}, {64, 2}, {1, 64}, {64, 3}, {1, 1}, {256, 256}, {8, 1}}) {
        const int64_t in = io.first, out = io.second;
        at::Tensor W = theta.narrow(0, 7, in * out).view({in, out});
        at::Tensor b = theta.narrow(0, 100000, out);
        at::Tensor h = at::randn({rows, in}, at::kFloat);
        at::Tensor dY = at::randn({rows, out}, at::kFloat);
        // addmm(b, h, W)
        at::Tensor want = at::addmm(b, h, W), got = at::empty({rows, out}, at::kFloat);
        for (int64_t r = 0; r < rows; r++) std::memcpy(got.data_ptr<float>() + r * out, b.data_ptr<float>(), 4 * out);
        (*compared)++;
        if (!atenGemm(matOf(got), matOf(h), matOf(W), 1)) {
          (*declined)++;
        } else if (!same(want, got)) {
          (*mismatched)++;
        }
        // mm_out(gW, hᵀ, dY) into a view of a flat vector
        at::Tensor flat = at::zeros({in * out + 16}, at::kFloat);
        at::Tensor gW = flat.narrow(0, 3, in * out).view({in, out});
        at::Tensor wantG = at::mm(h.t(), dY);
        (*compared)++;
        if (!atenGemm(matOf(gW), matOf(h).t(), matOf(dY), 0)) {
          (*declined)++;
        } else if (!same(wantG, gW.contiguous())) {
          (*mismatched)++;
        }
        // mm(dY, Wᵀ)
        at::Tensor wantH = at::mm(dY, W.t()), gotH = at::empty({rows, in}, at::kFloat);
        (*compared)++;
        if (!atenGemm(matOf(gotH), matOf(dY), matOf(W).t(), 0)) {
          (*declined)++;
        } else if (!same(wantH, gotH)) {
          (*mismatched)++;
        }
      }
    }
    return nullptr;
  } catch (const std::exception &e) {
    return dupErr(e.what());
  }
}

}  // extern "C"
