// cfloor.c: the floor of one PPO minibatch update at CleanRL's sizes, a
// measuring stick for ppo's libtorch shim: CleanRL's ppo_continuous_action
// update computed exactly -- separate tanh actor and critic (two hidden
// layers each), a state-independent log std, the Gaussian log-probability,
// the clipped surrogate, the clipped value loss, the entropy term,
// per-minibatch advantage normalisation, global gradient-norm clipping and
// torch.optim.Adam -- with a hand-derived backward pass, every product
// through register-blocked loops of the kernel setting's vector width
// (gemm.c; cfloor_set_products switches to OpenBLAS's cblas_sgemm, the slower
// way, for comparison), tanh through glibc's vector kernel, and no
// allocation after cfloor_new.
//
// The parameter vector has package ppo's layout (ppo/model.go): actor
// W0 b0 W1 b1 W2 b2, log std, critic W0 b0 W1 b1 W2 b2, each W stored
// [in, out] row-major (y = x·W + b), so one θ means the same networks here
// and in ppo; the gradient test (ppo's TestCFloorMatchesAutograd) relies on
// it. The loss is computed in float32, as CleanRL's tensors are; sums over
// the minibatch's rows are accumulated in double.
#include "cfloor.h"
#include "gemm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RowMajor = 101, NoTrans = 111, Trans = 112 };
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc);
void openblas_set_num_threads(int);
char *openblas_get_corename(void);

static const float halfLog2Pi = 0.91893853320467274178f;

typedef struct {
  int in, out;
  int w, b;  // offsets into theta
} layer;

struct cfloor {
  int obs, act, hidden, rows, batch, n;
  layer L[6];  // actor 3 layers, critic 3 layers
  int ls;      // offset of the log std
  cfloor_hyper hp;
  float *theta, *g, *m, *v;
  int64_t step;
  // The batch.
  float *bobs, *bact, *blogp, *bval, *badv, *bret;
  int *perm;
  int next;
  // One minibatch.
  float *x, *a, *olp, *ov, *adv, *ret;
  float *h[4], *mu, *val, *dmu, *dv, *dh, *dz;
  float *sigma, *inv;
  double *dls;
  float *wt;   // a layer's weights transposed, or a transposed gradient
  int avx512;  // tanh on 16 lanes, and the 16-float products
  int blas;    // the products through cblas_sgemm instead of gemm.c's
  const gemm_kernels *gk;
  char kernels[128];
};

static uint64_t rng_state;
static float urand(void) {  // splitmix64 → [-1, 1)
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (float)((z >> 40) * (1.0 / 8388608.0)) - 1.0f;
}

// tanh16 and tanh8 are glibc's vector tanhf (libmvec, within 1 ulp here as
// Sleef's u10 kernel, which ATen calls, but about three times faster on
// this machine): -ffast-math lets GCC call its 16-float AVX-512 or its
// 8-float AVX2 kernel for the loop.
__attribute__((noinline)) static void tanh16(float *p, int n) {
  for (int i = 0; i < n; i++) p[i] = tanhf(p[i]);
}

#pragma GCC push_options
#pragma GCC target("avx2,fma,no-avx512f")
__attribute__((noinline)) static void tanh8(float *p, int n) {
  for (int i = 0; i < n; i++) p[i] = tanhf(p[i]);
}
#pragma GCC pop_options

static void tanh_inplace(const cfloor *f, float *p, int n) { f->avx512 ? tanh16(p, n) : tanh8(p, n); }

static float *fl(size_t n) { return calloc(n ? n : 1, sizeof(float)); }

cfloor *cfloor_new(int obs, int act, int hidden, int rows, int batch, uint64_t seed) {
  openblas_set_num_threads(1);
  cfloor *f = calloc(1, sizeof *f);
  f->obs = obs, f->act = act, f->hidden = hidden, f->rows = rows, f->batch = batch;
  int dims[2][4] = {{obs, hidden, hidden, act}, {obs, hidden, hidden, 1}};
  int off = 0;
  for (int net = 0; net < 2; net++) {
    for (int k = 0; k < 3; k++) {
      layer *l = &f->L[3 * net + k];
      l->in = dims[net][k], l->out = dims[net][k + 1];
      l->w = off, off += l->in * l->out;
      l->b = off, off += l->out;
    }
    if (net == 0) f->ls = off, off += act;
  }
  f->n = off;
  f->theta = fl(off), f->g = fl(off), f->m = fl(off), f->v = fl(off);
  f->hp = (cfloor_hyper){.clip = 0.2f, .vcoef = 0.5f, .entcoef = 0, .maxgrad = 0.5f, .lr = 3e-4f, .beta1 = 0.9f,
                         .beta2 = 0.999f, .eps = 1e-5f, .clipv = 1, .normadv = 1};
  rng_state = seed;
  for (int k = 0; k < 6; k++) {
    float s = 1.0f / sqrtf((float)f->L[k].in) * (k == 2 ? 0.01f : 1.0f);
    for (int i = 0; i < f->L[k].in * f->L[k].out; i++) f->theta[f->L[k].w + i] = s * urand();
  }
  // A batch like a rollout's: actions around the initial policy's means
  // (log std 0), old log-probabilities near the current ones (ratios on
  // both sides of the clip range), advantages and returns.
  f->bobs = fl((size_t)batch * obs), f->bact = fl((size_t)batch * act);
  f->blogp = fl(batch), f->bval = fl(batch), f->badv = fl(batch), f->bret = fl(batch);
  for (int i = 0; i < batch * obs; i++) f->bobs[i] = urand();
  for (int i = 0; i < batch; i++) {
    float sq = 0;
    for (int j = 0; j < act; j++) {
      float a = 1.7f * urand();
      f->bact[i * act + j] = a, sq += a * a;
    }
    f->blogp[i] = -0.5f * sq - act * halfLog2Pi + 0.3f * urand();
    f->bval[i] = urand(), f->badv[i] = urand();
    f->bret[i] = f->bval[i] + f->badv[i];
  }
  f->perm = malloc(sizeof(int) * batch);
  for (int i = 0; i < batch; i++) f->perm[i] = i;
  f->x = fl((size_t)rows * obs), f->a = fl((size_t)rows * act);
  f->olp = fl(rows), f->ov = fl(rows), f->adv = fl(rows), f->ret = fl(rows);
  for (int k = 0; k < 4; k++) f->h[k] = fl((size_t)rows * hidden);
  f->mu = fl((size_t)rows * act), f->val = fl(rows), f->dmu = fl((size_t)rows * act), f->dv = fl(rows);
  f->dh = fl((size_t)rows * hidden), f->dz = fl((size_t)rows * hidden);
  f->sigma = fl(act), f->inv = fl(act);
  f->dls = calloc(act, sizeof(double));
  int widest = obs > hidden ? obs : hidden;
  f->wt = fl((size_t)widest * (widest > act ? widest : act));
  // The tanh kernel follows ATen's rule: AVX-512 when the CPU has it,
  // unless ATEN_CPU_CAPABILITY pins avx2.
  const char *cap = getenv("ATEN_CPU_CAPABILITY");
  __builtin_cpu_init();
  f->avx512 = __builtin_cpu_supports("avx512f") && !(cap && (!strcmp(cap, "avx2") || !strcmp(cap, "default")));
  cfloor_set_products(f, 0, f->avx512);
  return f;
}

void cfloor_free(cfloor *f) {
  if (!f) return;
  void *ps[] = {f->theta, f->g,   f->m,   f->v,   f->bobs, f->bact, f->blogp, f->bval, f->badv, f->bret,
                f->perm,  f->x,   f->a,   f->olp, f->ov,   f->adv,  f->ret,   f->h[0], f->h[1], f->h[2],
                f->h[3],  f->mu,  f->val, f->dmu, f->dv,   f->dh,   f->dz,    f->sigma, f->inv, f->dls,
                f->wt};
  for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) free(ps[k]);
  free(f);
}

void cfloor_set_hyper(cfloor *f, const cfloor_hyper *h) { f->hp = *h; }

int cfloor_set_products(cfloor *f, int blas, int wide) {
  if (!blas && wide && !__builtin_cpu_supports("avx512f")) return -1;
  f->blas = blas;
  if (!blas) f->gk = wide ? &gemm_avx512 : &gemm_avx2;
  const char *core = openblas_get_corename();
  if (blas)
    snprintf(f->kernels, sizeof f->kernels, "OpenBLAS %s, tanh libmvec %s", core ? core : "?",
             f->avx512 ? "avx512f" : "avx2");
  else
    snprintf(f->kernels, sizeof f->kernels, "products %s, tanh libmvec %s", f->gk->name, f->avx512 ? "avx512f" : "avx2");
  return 0;
}

void cfloor_set_batch(cfloor *f, const float *obs, const float *act, const float *logp, const float *val,
                      const float *adv, const float *ret) {
  size_t B = f->batch;
  memcpy(f->bobs, obs, sizeof(float) * B * f->obs);
  memcpy(f->bact, act, sizeof(float) * B * f->act);
  memcpy(f->blogp, logp, sizeof(float) * B);
  memcpy(f->bval, val, sizeof(float) * B);
  memcpy(f->badv, adv, sizeof(float) * B);
  memcpy(f->bret, ret, sizeof(float) * B);
}

void cfloor_set_adam(cfloor *f, int64_t step) { f->step = step; }
int cfloor_params(cfloor *f) { return f->n; }
float *cfloor_theta(cfloor *f) { return f->theta; }
float *cfloor_grad(cfloor *f) { return f->g; }
float *cfloor_m(cfloor *f) { return f->m; }
float *cfloor_v(cfloor *f) { return f->v; }
const char *cfloor_kernels(cfloor *f) { return f->kernels; }

// fits reports whether gemm.c's products take a product with n output
// columns (a multiple of the column block) or, as rows of dot products,
// an inner dimension k (a multiple of the vector width).
static int fitsCols(const cfloor *f, int n) { return !f->blas && n % f->gk->cols == 0; }
static int fitsDots(const cfloor *f, int k) { return !f->blas && k % f->gk->width == 0; }

// dense computes out = in·W + b for the minibatch's rows (ATen's addmm:
// the bias broadcast into out, then one sgemm with beta 1).
static void dense(cfloor *f, const layer *l, const float *in, float *out) {
  const float *b = f->theta + l->b, *w = f->theta + l->w;
  if (fitsCols(f, l->out)) {
    f->gk->mm(f->rows, l->in, l->out, in, l->in, 1, w, b, out);
    return;
  }
  if (fitsDots(f, l->in)) {  // a narrow output (the mean, the value): dot products with Wᵀ's rows
    gemm_transpose(l->in, l->out, w, f->wt);
    f->gk->dots(f->rows, l->out, l->in, in, f->wt, b, out);
    return;
  }
  for (int r = 0; r < f->rows; r++) memcpy(out + r * l->out, b, sizeof(float) * l->out);
  cblas_sgemm(RowMajor, NoTrans, NoTrans, f->rows, l->out, l->in, 1, in, l->in, w, l->out, 1, out, l->out);
}

// back writes layer l's weight gradient inᵀ·dy and bias gradient (dy's
// column sums) and, when din is set, the input gradient dy·Wᵀ.
static void back(cfloor *f, const layer *l, const float *in, const float *dy, float *din) {
  float *gw = f->g + l->w;
  const float *w = f->theta + l->w;
  if (fitsCols(f, l->out)) {
    f->gk->mm(l->in, f->rows, l->out, in, 1, l->in, dy, NULL, gw);
  } else if (fitsCols(f, l->in)) {  // a narrow output: (dyᵀ·in)ᵀ
    f->gk->mm(l->out, f->rows, l->in, dy, 1, l->out, in, NULL, f->wt);
    gemm_transpose(l->out, l->in, f->wt, gw);
  } else {
    cblas_sgemm(RowMajor, Trans, NoTrans, l->in, l->out, f->rows, 1, in, l->in, dy, l->out, 0, gw, l->out);
  }
  float *restrict gb = f->g + l->b;
  const float *restrict d = dy;
  const int out = l->out;
  memset(gb, 0, sizeof(float) * out);
  for (int r = 0; r < f->rows; r++)
    for (int j = 0; j < out; j++) gb[j] += d[r * out + j];
  if (!din) return;
  if (fitsCols(f, l->in)) {
    gemm_transpose(l->in, l->out, w, f->wt);
    f->gk->mm(f->rows, l->out, l->in, dy, l->out, 1, f->wt, NULL, din);
    return;
  }
  cblas_sgemm(RowMajor, NoTrans, Trans, f->rows, l->in, l->out, 1, dy, l->out, w, l->out, 0, din, l->in);
}

// forward runs network net (0 actor, 1 critic) on the minibatch into out.
static void forward(cfloor *f, int net, float *out) {
  const layer *L = &f->L[3 * net];
  float *h1 = f->h[2 * net], *h2 = f->h[2 * net + 1];
  dense(f, &L[0], f->x, h1);
  tanh_inplace(f, h1, f->rows * L[0].out);
  dense(f, &L[1], h1, h2);
  tanh_inplace(f, h2, f->rows * L[1].out);
  dense(f, &L[2], h2, out);
}

// backward backpropagates the output gradient dy through network net
// (tanh′ = 1 − tanh², from the stored activations).
static void backward(cfloor *f, int net, const float *dy) {
  const layer *L = &f->L[3 * net];
  float *h1 = f->h[2 * net], *h2 = f->h[2 * net + 1];
  float *restrict dz = f->dz;
  const float *restrict dh = f->dh;
  back(f, &L[2], h2, dy, f->dh);
  for (int i = 0; i < f->rows * L[1].out; i++) dz[i] = dh[i] * (1 - h2[i] * h2[i]);
  back(f, &L[1], h1, f->dz, f->dh);
  for (int i = 0; i < f->rows * L[0].out; i++) dz[i] = dh[i] * (1 - h1[i] * h1[i]);
  back(f, &L[0], f->x, f->dz, NULL);
}

// maxWeights is torch.maximum's gradient split between its arguments: all
// to the larger, half to each on a tie.
static inline void maxWeights(float a, float b, float *wa, float *wb) {
  *wa = a > b ? 1.0f : (a < b ? 0.0f : 0.5f);
  *wb = 1.0f - *wa;
}

// loss computes CleanRL's loss on the gathered minibatch and its gradient
// with respect to the networks' outputs (dmu, dv) and the log std (into
// the gradient vector):
//
//	log π(a|s) = −½·Σ_j ((a_j − μ_j)/σ_j)² − Σ_j log σ_j − (A/2)·log 2π
//	r = exp(log π − log π_old)
//	L_pg = mean(max(−Â·r, −Â·clamp(r, 1−ε, 1+ε)))
//	L_v  = ½·mean(max((V − R)², (V_old + clamp(V − V_old, −ε, ε) − R)²))
//	H    = Σ_j (log σ_j + ½ + ½·log 2π)
//	L    = L_pg + c_v·L_v − c_ent·H
//
// with autograd's conventions at the kinks (torch.maximum splits a tie,
// torch.clamp passes the gradient where min ≤ x ≤ max).
static void loss(cfloor *f, cfloor_terms *t) {
  const int B = f->rows, A = f->act;
  const cfloor_hyper *hp = &f->hp;
  const float *ls = f->theta + f->ls;
  memset(t, 0, sizeof *t);
  if (hp->normadv && B > 1) {  // (Â − mean)/(std + 1e-8), torch.std's unbiased estimate
    double mean = 0, ss = 0;
    for (int i = 0; i < B; i++) mean += f->adv[i];
    mean /= B;
    for (int i = 0; i < B; i++) ss += (f->adv[i] - mean) * (f->adv[i] - mean);
    float mf = (float)mean, sd = (float)sqrt(ss / (B - 1));
    for (int i = 0; i < B; i++) f->adv[i] = (f->adv[i] - mf) / (sd + 1e-8f);
  }
  float sumls = 0;
  for (int j = 0; j < A; j++) {
    f->sigma[j] = expf(ls[j]);
    f->inv[j] = 1.0f / f->sigma[j];
    sumls += ls[j];
    f->dls[j] = 0;
  }
  const float lo = 1 - hp->clip, hi = 1 + hp->clip, invB = 1.0f / B;
  double pg = 0, vl = 0, kl = 0;
  for (int i = 0; i < B; i++) {
    const float *a = f->a + i * A, *mu = f->mu + i * A;
    float *dmu = f->dmu + i * A;
    float sq = 0;
    for (int j = 0; j < A; j++) {
      float z = (a[j] - mu[j]) * f->inv[j];
      dmu[j] = z;
      sq += z * z;
    }
    float logp = -0.5f * sq - sumls - A * halfLog2Pi;
    float lr = logp - f->olp[i];
    float r = expf(lr);
    kl += (double)(r - 1) - lr;
    if (fabsf(r - 1) > hp->clip) t->clipped++;
    float adv = f->adv[i];
    float rc = fminf(fmaxf(r, lo), hi);
    float u1 = -adv * r, u2 = -adv * rc, w1, w2;
    pg += fmaxf(u1, u2);
    maxWeights(u1, u2, &w1, &w2);
    float pass = (r >= lo && r <= hi) ? 1.0f : 0.0f;
    float dlogp = -adv * (w1 + w2 * pass) * invB * r;  // ∂L/∂r · r
    for (int j = 0; j < A; j++) {
      float z = dmu[j];
      dmu[j] = dlogp * z * f->inv[j];       // ∂logp/∂μ_j = z_j/σ_j
      f->dls[j] += dlogp * (z * z - 1);     // ∂logp/∂log σ_j = z_j² − 1
    }
    float v = f->val[i], e1 = v - f->ret[i], dv;
    if (hp->clipv) {
      float d = v - f->ov[i];
      float e2 = f->ov[i] + fminf(fmaxf(d, -hp->clip), hp->clip) - f->ret[i];
      float s1 = e1 * e1, s2 = e2 * e2, k1, k2;
      vl += fmaxf(s1, s2);
      maxWeights(s1, s2, &k1, &k2);
      float vpass = (d >= -hp->clip && d <= hp->clip) ? 1.0f : 0.0f;
      dv = (k1 * e1 + k2 * e2 * vpass) * invB;  // ½·2·(…)/B
    } else {
      vl += e1 * e1;
      dv = e1 * invB;
    }
    f->dv[i] = hp->vcoef * dv;
  }
  float *gls = f->g + f->ls;
  for (int j = 0; j < A; j++) gls[j] = (float)f->dls[j] - hp->entcoef;  // ∂H/∂log σ_j = 1
  t->pg = pg / B;
  t->v = 0.5 * vl / B;
  t->entropy = sumls + A * (0.5 + (double)halfLog2Pi);
  t->klsum = kl;
  t->loss = t->pg + hp->vcoef * t->v - hp->entcoef * t->entropy;
}

float cfloor_gradient(cfloor *f, const int *idx, cfloor_terms *t) {
  const int O = f->obs, A = f->act;
  for (int r = 0; r < f->rows; r++) {
    int i = idx[r];
    memcpy(f->x + r * O, f->bobs + (size_t)i * O, sizeof(float) * O);
    memcpy(f->a + r * A, f->bact + (size_t)i * A, sizeof(float) * A);
    f->olp[r] = f->blogp[i], f->ov[r] = f->bval[i], f->adv[r] = f->badv[i], f->ret[r] = f->bret[i];
  }
  forward(f, 0, f->mu);
  forward(f, 1, f->val);
  loss(f, t);
  backward(f, 0, f->dmu);
  backward(f, 1, f->dv);
  const float *restrict g = f->g;
  float ss = 0;
  for (int i = 0; i < f->n; i++) ss += g[i] * g[i];
  return sqrtf(ss);
}

// cfloor_step is torch.nn.utils.clip_grad_norm_ (scale by
// max/(norm + 1e-6) when that is below 1) and torch.optim.Adam's step
// (amsgrad off, no weight decay).
void cfloor_step(cfloor *f, float gnorm) {
  const cfloor_hyper *hp = &f->hp;
  float coef = 1;
  if (hp->maxgrad > 0) {
    coef = hp->maxgrad / (gnorm + 1e-6f);
    if (coef > 1) coef = 1;
  }
  f->step++;
  const float bc1 = 1 - powf(hp->beta1, (float)f->step), bc2 = 1 - powf(hp->beta2, (float)f->step);
  const float stepSize = hp->lr / bc1, isb2 = 1 / sqrtf(bc2), b1 = hp->beta1, b2 = hp->beta2, eps = hp->eps;
  float *restrict g = f->g, *restrict m = f->m, *restrict v = f->v, *restrict th = f->theta;
  for (int i = 0; i < f->n; i++) {
    float gi = g[i] * coef;
    float mi = b1 * m[i] + (1 - b1) * gi;
    float vi = b2 * v[i] + (1 - b2) * gi * gi;
    m[i] = mi, v[i] = vi;
    th[i] -= stepSize * mi / (sqrtf(vi) * isb2 + eps);
  }
}

double cfloor_run(cfloor *f, int n) {
  cfloor_terms t = {0};
  int per = f->batch / f->rows;
  for (int s = 0; s < n; s++) {
    if (f->next % per == 0)  // a new epoch: shuffle the batch
      for (int i = f->batch - 1; i > 0; i--) {
        int j = (int)((urand() + 1) * 0.5f * (i + 1)) % (i + 1);
        int tmp = f->perm[i];
        f->perm[i] = f->perm[j], f->perm[j] = tmp;
      }
    float gn = cfloor_gradient(f, f->perm + (f->next % per) * f->rows, &t);
    cfloor_step(f, gn);
    f->next++;
  }
  return t.loss;
}
