// gemm.c: the update floor's matrix products (64×64 and smaller), written
// for the registers instead of called through a general BLAS. At these
// sizes a general sgemm spends much of its time packing its operands into
// blocks, where a register-blocked loop reads each operand straight from
// L1: the floor has to be the fastest way this machine computes the
// update, and these products are where its time goes. Each width is its
// own code: 8-float vectors with FMA only (what the pinned setting's
// OpenBLAS Haswell kernels use) and 16-float AVX-512 vectors (the native
// setting's, on a CPU that has them). TestGemmMatchesBLAS checks both
// against OpenBLAS's cblas_sgemm.
#include "gemm.h"

#include <stddef.h>

#pragma GCC push_options
#pragma GCC target("avx2,fma,no-avx512f")
typedef float v8 __attribute__((vector_size(32)));
typedef float v8u __attribute__((vector_size(32), aligned(4), may_alias));
#define V v8
#define VU v8u
#define W 8
#ifndef RB8
#define RB8 6
#define CB8 2
#endif
#define RB RB8  // 6 rows × 2 vectors: 12 of the 16 ymm registers accumulate, 2 hold B's row
#define CB CB8
#define SUF avx2
#include "gemm_kernels.h"
#undef V
#undef VU
#undef W
#undef RB
#undef CB
#undef SUF
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f")
typedef float v16 __attribute__((vector_size(64)));
typedef float v16u __attribute__((vector_size(64), aligned(4), may_alias));
#define V v16
#define VU v16u
#define W 16
#ifndef RB16
#define RB16 6
#define CB16 4
#endif
#define RB RB16  // 6 rows × 4 vectors: 24 of the 32 zmm registers accumulate
#define CB CB16
#define SUF avx512
#include "gemm_kernels.h"
#pragma GCC pop_options

void gemm_transpose(int rows, int cols, const float *src, float *dst) {
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) dst[(size_t)c * rows + r] = src[(size_t)r * cols + c];
}
