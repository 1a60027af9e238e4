// shim.h: the C interface of shim.cpp, the trainer's minibatch step in
// libtorch's C++ API (ATen), one cgo call per phase instead of one per op.
#ifndef HYPERCTL_PPO_SHIM_H
#define HYPERCTL_PPO_SHIM_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct ppo_shim ppo_shim;

// ppo_shim_new builds the cached parameter and gradient views over the flat
// parameter vector theta (a torch::Tensor*, float32, contiguous; aliased, not
// copied) and the Adam moments m and v. desc holds, for the actor's nA
// layers then the critic's nC layers, 4 values per layer: weight offset, in,
// out, bias offset (weights stored [in, out]); then the log std's offset and
// length; then the total length. relu selects ReLU instead of tanh. It
// returns an error string (free with free) or NULL and sets *out.
char *ppo_shim_new(void *theta, void *m, void *v, const int64_t *desc, int nA, int nC, int relu, ppo_shim **out);
void ppo_shim_free(ppo_shim *s);

// ppo_shim_set_halves sets how many row blocks (1 or 2) a minibatch's
// forward and backward are split into; with 2 the second block runs on a
// worker thread of the shim and the gradients are summed in a fixed order.
char *ppo_shim_set_halves(ppo_shim *s, int halves);

// ppo_shim_forward runs both networks on x (B×obsDim) and keeps the
// activations for ppo_shim_backward. split allows the two-halves split (the
// update's forward); inference passes 0. It writes the action means (B×actDim;
// the actor is skipped when mu is NULL), the values (B; skipped when v is NULL) and the log std (actDim; skipped
// when logstd is NULL).
char *ppo_shim_forward(ppo_shim *s, const float *x, int64_t B, int split, float *mu, float *v, float *logstd);

// ppo_shim_backward backpropagates the output gradients (gmu B×actDim, gv B,
// gls actDim) of the last forward through both networks into the shim's
// flat gradient vector and writes its 2-norm.
char *ppo_shim_backward(ppo_shim *s, const float *gmu, const float *gv, const float *gls, double *gnorm);

// ppo_shim_step scales the gradient by clip_coef when scale is non-zero and
// takes one Adam step on theta, fused into one pass: m.lerp_(g, w1);
// v.lerp_(g², w2); d = √v·c1 + c2; theta.addcdiv_(m, d). g is a torch::Tensor* gradient or
// NULL for the shim's own.
char *ppo_shim_step(ppo_shim *s, void *g, int scale, double clip_coef, double w1, double w2, double c1, double c2);

// ppo_shim_grad returns a new torch::Tensor* aliasing the shim's gradient
// vector (free it with at_free).
void *ppo_shim_grad(ppo_shim *s);

// ppo_shim_blas writes the loaded OpenBLAS's thread count (0: not OpenBLAS;
// the shim sets it to 1 at process start) and returns openblas_get_config()'s
// string ("" when not OpenBLAS); free it with free.
char *ppo_shim_blas(int *threads);

// ppo_shim_aten_capability returns the vectorisation ATen's kernels run
// (at::show_config's "CPU capability usage": "AVX2", "AVX512", "NO AVX"),
// fixing it if no kernel has run yet; free it with free.
char *ppo_shim_aten_capability(void);

// ppo_shim_tanh_check compares the shim's tanh and tanh backward with
// ATen's bit for bit (see shim.cpp); returns an error or NULL.
char *ppo_shim_tanh_check(int64_t *compared, int64_t *mismatched, int *direct);

// ppo_shim_gemm_check compares the shim's direct sgemm calls with ATen's
// addmm, mm_out and mm bit for bit (see shim.cpp); returns an error or NULL.
char *ppo_shim_gemm_check(int64_t *compared, int64_t *declined, int64_t *mismatched);

#ifdef __cplusplus
}
#endif
#endif
