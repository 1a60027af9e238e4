// gemm.h: the update floor's small matrix products, written for the
// registers of one vector width (see gemm.c).
#ifndef PPO_CFLOOR_GEMM_H
#define PPO_CFLOOR_GEMM_H

// A gemm_kernels is one vector width's products; every matrix is
// row-major and contiguous.
typedef struct {
  // mm computes C[M×N] = bias + Σ_p a(i,p)·B[p, :] over p < P, where
  // a(i,p) = A[i·si + p·sp] (si = P, sp = 1: A is M×P; si = 1, sp = M: A
  // is P×M and the product is Aᵀ·B); bias (N values) may be NULL. N must be
  // a multiple of cols.
  void (*mm)(int M, int P, int N, const float *A, int si, int sp, const float *B, const float *bias, float *C);
  // dots computes C[M×N] = bias + A·Btᵀ, A M×K, Bt N×K (rows of dot
  // products of length K, a multiple of the width); bias may be NULL.
  void (*dots)(int M, int N, int K, const float *A, const float *Bt, const float *bias, float *C);
  int width;  // floats per vector
  int cols;   // mm's column block: N must be a multiple of it
  const char *name;
} gemm_kernels;

// gemm_avx2 is 8-float vectors with FMA (Haswell's instructions); gemm_avx512
// is 16-float vectors (AVX-512F).
extern const gemm_kernels gemm_avx2, gemm_avx512;

// gemm_transpose writes dst[cols×rows] = src[rows×cols]ᵀ.
void gemm_transpose(int rows, int cols, const float *src, float *dst);
#endif
