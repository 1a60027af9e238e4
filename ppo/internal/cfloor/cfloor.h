// cfloor.h: the PPO update floor in C (see cfloor.go).
#ifndef PPO_CFLOOR_H
#define PPO_CFLOOR_H
#include <stdint.h>

typedef struct cfloor cfloor;

// cfloor_hyper are the settings of CleanRL's update.
typedef struct {
  float clip;        // ε of the surrogate and of the value clip
  float vcoef;       // c_v
  float entcoef;     // c_ent
  float maxgrad;     // global gradient-norm clip (≤ 0: none)
  float lr, beta1, beta2, eps;  // Adam
  int clipv;         // clipped value loss
  int normadv;       // per-minibatch advantage normalisation
} cfloor_hyper;

// cfloor_terms are one minibatch's loss values.
typedef struct {
  double loss, pg, v, entropy, klsum;
  int clipped;
} cfloor_terms;

cfloor *cfloor_new(int obs, int act, int hidden, int rows, int batch, uint64_t seed);
void cfloor_free(cfloor *f);
void cfloor_set_hyper(cfloor *f, const cfloor_hyper *h);
// cfloor_set_batch copies a batch of f's batch size in: obs (batch×obs),
// act (batch×act), and per frame log π_old, V_old, the advantage and the
// value target.
void cfloor_set_batch(cfloor *f, const float *obs, const float *act, const float *logp, const float *val,
                      const float *adv, const float *ret);
// cfloor_gradient computes the loss of the frames idx (f's rows of them)
// and its gradient into f's gradient vector, unclipped, and returns the
// gradient's 2-norm.
float cfloor_gradient(cfloor *f, const int *idx, cfloor_terms *t);
// cfloor_step clips the gradient to the norm gnorm's bound and takes one
// Adam step.
void cfloor_step(cfloor *f, float gnorm);
// cfloor_run takes n minibatch steps (a new shuffle every epoch: gather,
// forward, loss, backward, clipping, Adam) and returns the last loss.
double cfloor_run(cfloor *f, int n);
void cfloor_set_adam(cfloor *f, int64_t step);
int cfloor_params(cfloor *f);
float *cfloor_theta(cfloor *f);
float *cfloor_grad(cfloor *f);
float *cfloor_m(cfloor *f);
float *cfloor_v(cfloor *f);
// cfloor_set_products computes the products through OpenBLAS's
// cblas_sgemm (blas 1) or gemm.c's register-blocked loops (blas 0) of 16
// floats (wide 1) or 8; it returns -1, changing nothing, for wide loops on
// a CPU without AVX-512. cfloor_new chooses the loops, wide when the tanh
// is (ATen's rule).
int cfloor_set_products(cfloor *f, int blas, int wide);
// cfloor_kernels names the products' kernels (gemm.c's width, or
// OpenBLAS's core) and the tanh kernel in use.
const char *cfloor_kernels(cfloor *f);
#endif
