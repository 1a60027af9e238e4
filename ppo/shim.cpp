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

// Half is one row block's working state.
struct Half {
  Grads gr;
  at::Tensor x;
  std::vector<at::Tensor> hA, hC;  // post-activation outputs of the hidden layers
  at::Tensor mu, v;                // network outputs
  int64_t row0 = 0, rows = 0;
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

  at::Tensor act(at::Tensor y) const { return relu ? y.relu_() : y.tanh_(); }

  at::Tensor mlp(const std::vector<Layer> &ls, const at::Tensor &x, std::vector<at::Tensor> &hs) const {
    hs.clear();
    at::Tensor h = x;
    for (size_t k = 0; k < ls.size(); k++) {
      at::Tensor y = at::addmm(ls[k].b, h, ls[k].W);
      if (k + 1 < ls.size()) {
        h = act(y);
        hs.push_back(h);
      } else {
        h = y;
      }
    }
    return h;
  }

  void forwardHalf(Half &h, const float *x, float *mu, float *v) {
    h.x = at::from_blob(const_cast<float *>(x) + h.row0 * obsDim, {h.rows, obsDim}, at::kFloat).clone();
    if (mu) {
      h.mu = mlp(actor, h.x, h.hA);
      std::memcpy(mu + h.row0 * actDim, h.mu.data_ptr<float>(), sizeof(float) * h.rows * actDim);
    }
    if (v) {
      h.v = mlp(critic, h.x, h.hC);
      std::memcpy(v + h.row0, h.v.data_ptr<float>(), sizeof(float) * h.rows);
    }
  }

  // backMLP writes the gradients of layers [first, first+ls.size()) of gr.
  void backMLP(const std::vector<Layer> &ls, const at::Tensor &x, const std::vector<at::Tensor> &hs,
               at::Tensor dY, Grads &gr, int first) const {
    for (int k = static_cast<int>(ls.size()) - 1; k >= 0; k--) {
      const at::Tensor &in = k == 0 ? x : hs[k - 1];
      at::mm_out(gr.gW[first + k], in.t(), dY);
      at::sum_out(gr.gb[first + k], dY, {0});
      if (k > 0) {
        at::Tensor dH = at::mm(dY, ls[k].W.t());
        dY = relu ? at::threshold_backward(dH, in, 0) : at::tanh_backward(dH, in);
      }
    }
  }

  void backwardHalf(Half &h, const float *gmu, const float *gv) {
    at::Tensor dmu = at::from_blob(const_cast<float *>(gmu) + h.row0 * actDim, {h.rows, actDim}, at::kFloat);
    at::Tensor dv = at::from_blob(const_cast<float *>(gv) + h.row0, {h.rows, 1}, at::kFloat);
    backMLP(actor, h.x, h.hA, dmu, h.gr, 0);
    backMLP(critic, h.x, h.hC, dv, h.gr, nA);
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

char *ppo_shim_blas(int *threads) {
  *threads = openblas.threads ? openblas.threads() : 0;
  return dupErr(openblas.config ? openblas.config() : "");
}

}  // extern "C"
