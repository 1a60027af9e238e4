// cfloor.c: the C floor of one PPO minibatch step at CleanRL's sizes, a
// measuring stick for ppo's libtorch shim (issue 39): a tanh actor and
// critic with two hidden layers each, forward, a hand-written backward
// and Adam with global-norm clipping, all products through OpenBLAS's
// cblas_sgemm called directly and tanh through Sleef's 8-lane AVX2 kernel
// (the one ATen uses), no allocation after cfloor_new. The loss is a
// stand-in with the same output gradient shapes as PPO's (a squared error
// on the action means and on the values); its cost is a few hundred flops.
#include "cfloor.h"

#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { RowMajor = 101, NoTrans = 111, Trans = 112 };
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc);
__m256 Sleef_tanhf8_u10avx2(__m256);
void openblas_set_num_threads(int);

typedef struct {
  int in, out;
  int w, b;  // offsets into theta (w is in×out, row-major: y = x·W + b)
} layer;

struct cfloor {
  int obs, act, hidden, rows, batch, n;
  layer L[6];  // actor 3 layers, critic 3 layers
  float *theta, *g, *m, *v;
  float *data, *target;  // batch×obs inputs, batch×(act+1) targets
  int *perm;
  float *x, *h[4], *y[2], *dy[2], *dh, *dz;
  int step, next;
};

static uint64_t rng_state;
static float urand(void) {  // splitmix64 → [-1, 1)
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (float)((z >> 40) * (1.0 / 8388608.0)) - 1.0f;
}

static void tanh_inplace(float *p, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(p + i, Sleef_tanhf8_u10avx2(_mm256_loadu_ps(p + i)));
  for (; i < n; i++) p[i] = tanhf(p[i]);
}

cfloor *cfloor_new(int obs, int act, int hidden, int rows, int batch, uint64_t seed) {
  openblas_set_num_threads(1);
  cfloor *f = calloc(1, sizeof *f);
  f->obs = obs, f->act = act, f->hidden = hidden, f->rows = rows, f->batch = batch;
  int dims[2][4] = {{obs, hidden, hidden, act}, {obs, hidden, hidden, 1}};
  int off = 0;
  for (int net = 0; net < 2; net++)
    for (int k = 0; k < 3; k++) {
      layer *l = &f->L[3 * net + k];
      l->in = dims[net][k], l->out = dims[net][k + 1];
      l->w = off, off += l->in * l->out;
      l->b = off, off += l->out;
    }
  f->n = off;
  f->theta = calloc(off, 4), f->g = calloc(off, 4), f->m = calloc(off, 4), f->v = calloc(off, 4);
  rng_state = seed;
  for (int net = 0; net < 6; net++) {
    float s = 1.0f / sqrtf((float)f->L[net].in);
    for (int i = 0; i < f->L[net].in * f->L[net].out; i++) f->theta[f->L[net].w + i] = s * urand();
  }
  f->data = malloc(sizeof(float) * batch * obs);
  f->target = malloc(sizeof(float) * batch * (act + 1));
  for (int i = 0; i < batch * obs; i++) f->data[i] = urand();
  for (int i = 0; i < batch * (act + 1); i++) f->target[i] = urand();
  f->perm = malloc(sizeof(int) * batch);
  for (int i = 0; i < batch; i++) f->perm[i] = i;
  f->x = malloc(sizeof(float) * rows * obs);
  for (int k = 0; k < 4; k++) f->h[k] = malloc(sizeof(float) * rows * hidden);
  f->y[0] = malloc(sizeof(float) * rows * act), f->y[1] = malloc(sizeof(float) * rows);
  f->dy[0] = malloc(sizeof(float) * rows * act), f->dy[1] = malloc(sizeof(float) * rows);
  f->dh = malloc(sizeof(float) * rows * hidden), f->dz = malloc(sizeof(float) * rows * hidden);
  return f;
}

void cfloor_free(cfloor *f) {
  if (!f) return;
  free(f->theta), free(f->g), free(f->m), free(f->v), free(f->data), free(f->target), free(f->perm), free(f->x);
  for (int k = 0; k < 4; k++) free(f->h[k]);
  free(f->y[0]), free(f->y[1]), free(f->dy[0]), free(f->dy[1]), free(f->dh), free(f->dz);
  free(f);
}

int cfloor_params(cfloor *f) { return f->n; }
float *cfloor_theta(cfloor *f) { return f->theta; }
float *cfloor_grad(cfloor *f) { return f->g; }

// dense computes out = in·W + b for rows rows.
static void dense(cfloor *f, const layer *l, const float *in, float *out) {
  const float *b = f->theta + l->b;
  for (int r = 0; r < f->rows; r++) memcpy(out + r * l->out, b, sizeof(float) * l->out);
  cblas_sgemm(RowMajor, NoTrans, NoTrans, f->rows, l->out, l->in, 1, in, l->in, f->theta + l->w, l->out, 1, out,
              l->out);
}

// back writes layer l's weight and bias gradients from the output gradient
// dy and its input in; when din is set, the input gradient dy·Wᵀ too.
static void back(cfloor *f, const layer *l, const float *in, const float *dy, float *din) {
  cblas_sgemm(RowMajor, Trans, NoTrans, l->in, l->out, f->rows, 1, in, l->in, dy, l->out, 0, f->g + l->w, l->out);
  float *restrict gb = f->g + l->b;
  const float *restrict d = dy;
  const int out = l->out;
  memset(gb, 0, sizeof(float) * out);
  for (int r = 0; r < f->rows; r++)
    for (int j = 0; j < out; j++) gb[j] += d[r * out + j];
  if (din)
    cblas_sgemm(RowMajor, NoTrans, Trans, f->rows, l->in, l->out, 1, dy, l->out, f->theta + l->w, l->out, 0, din,
                l->in);
}

// net runs one network forward and backward; its output gradient is
// 2(y − target)/rows (half the squared error's mean's), and it returns the
// loss.
static double net(cfloor *f, int which, const int *rowsIdx) {
  const layer *L = &f->L[3 * which];
  float *h1 = f->h[2 * which], *h2 = f->h[2 * which + 1], *y = f->y[which], *dy = f->dy[which];
  int out = L[2].out, stride = f->act + 1, col = which ? f->act : 0;
  dense(f, &L[0], f->x, h1);
  tanh_inplace(h1, f->rows * L[0].out);
  dense(f, &L[1], h1, h2);
  tanh_inplace(h2, f->rows * L[1].out);
  dense(f, &L[2], h2, y);
  double loss = 0;
  for (int r = 0; r < f->rows; r++)
    for (int j = 0; j < out; j++) {
      float d = y[r * out + j] - f->target[rowsIdx[r] * stride + col + j];
      loss += (double)d * d / f->rows;
      dy[r * out + j] = 2 * d / f->rows;
    }
  float *restrict dz = f->dz;
  const float *restrict dh = f->dh;
  back(f, &L[2], h2, dy, f->dh);
  for (int i = 0; i < f->rows * L[1].out; i++) dz[i] = dh[i] * (1 - h2[i] * h2[i]);
  back(f, &L[1], h1, f->dz, f->dh);
  for (int i = 0; i < f->rows * L[0].out; i++) dz[i] = dh[i] * (1 - h1[i] * h1[i]);
  back(f, &L[0], f->x, f->dz, NULL);
  return loss;
}

static double gradient(cfloor *f, int k) {
  const int *idx = f->perm + (k * f->rows) % f->batch;
  for (int r = 0; r < f->rows; r++) memcpy(f->x + r * f->obs, f->data + idx[r] * f->obs, sizeof(float) * f->obs);
  return net(f, 0, idx) + net(f, 1, idx);
}

double cfloor_loss(cfloor *f, int k) { return gradient(f, k); }

// adam clips the gradient to norm 0.5 and takes one Adam step (lr 3e-4,
// β 0.9/0.999, ε 1e-5), torch.optim.Adam's formula, in loops the compiler
// vectorises (restrict pointers; the norm in 8 float32 partial sums).
static void adam(cfloor *f) {
  float *restrict g = f->g, *restrict m = f->m, *restrict v = f->v, *restrict th = f->theta;
  const int n = f->n;
  float part[8] = {0};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; l++) part[l] += g[i + l] * g[i + l];
  double ss = 0;
  for (; i < n; i++) ss += (double)g[i] * g[i];
  for (int l = 0; l < 8; l++) ss += part[l];
  float coef = (float)(0.5 / (sqrt(ss) + 1e-6));
  if (coef > 1) coef = 1;
  f->step++;
  const float bc1 = 1 - powf(0.9f, f->step), bc2 = 1 - powf(0.999f, f->step);
  const float lr = 3e-4f / bc1, sb2 = sqrtf(bc2);
  const __m256 vc = _mm256_set1_ps(coef), b1 = _mm256_set1_ps(0.9f), a1 = _mm256_set1_ps(0.1f),
               b2 = _mm256_set1_ps(0.999f), a2 = _mm256_set1_ps(0.001f), vlr = _mm256_set1_ps(lr),
               vsb2 = _mm256_set1_ps(sb2), eps = _mm256_set1_ps(1e-5f);
  for (i = 0; i + 8 <= n; i += 8) {  // the loop below, 8 lanes at a time
    __m256 gi = _mm256_mul_ps(_mm256_loadu_ps(g + i), vc);
    __m256 mi = _mm256_add_ps(_mm256_mul_ps(b1, _mm256_loadu_ps(m + i)), _mm256_mul_ps(a1, gi));
    __m256 vi = _mm256_add_ps(_mm256_mul_ps(b2, _mm256_loadu_ps(v + i)), _mm256_mul_ps(a2, _mm256_mul_ps(gi, gi)));
    _mm256_storeu_ps(m + i, mi);
    _mm256_storeu_ps(v + i, vi);
    __m256 d = _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(vi), vsb2), eps);
    _mm256_storeu_ps(th + i, _mm256_sub_ps(_mm256_loadu_ps(th + i), _mm256_div_ps(_mm256_mul_ps(vlr, mi), d)));
  }
  for (; i < n; i++) {
    float gi = g[i] * coef;
    m[i] = 0.9f * m[i] + 0.1f * gi;
    v[i] = 0.999f * v[i] + 0.001f * gi * gi;
    th[i] -= lr * m[i] / (sqrtf(v[i]) / sb2 + 1e-5f);
  }
}

double cfloor_run(cfloor *f, int n) {
  double loss = 0;
  int per = f->batch / f->rows;
  for (int s = 0; s < n; s++) {
    if (f->next % per == 0)  // a new epoch: shuffle the batch
      for (int i = f->batch - 1; i > 0; i--) {
        int j = (int)((urand() + 1) * 0.5f * (i + 1)) % (i + 1);
        int t = f->perm[i];
        f->perm[i] = f->perm[j], f->perm[j] = t;
      }
    loss = gradient(f, f->next % per);
    adam(f);
    f->next++;
  }
  return loss;
}
