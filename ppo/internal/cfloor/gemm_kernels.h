// gemm_kernels.h: the body of one vector width's products, included by
// gemm.c once per width with V (the vector type), VU (its unaligned
// alias), W (its floats), RB and CB (the register block: RB rows by CB
// vectors) and SUF (the names' suffix) defined.
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(a) #a
#define STR(a) STR_(a)

// block computes rows i … i+rb−1 of mm's columns j … j+CB·W−1, keeping
// its rb·CB accumulators in registers through the whole sum over p; rb is
// a constant wherever it is called, so the loops unroll.
static inline __attribute__((always_inline)) void CAT(block_, SUF)(int rb, int i, int j, int P, int N,
                                                                   const float *A, int si, int sp, const float *B,
                                                                   const float *bias, float *C) {
  V acc[RB][CB];
#pragma GCC unroll 8
  for (int c = 0; c < CB; c++) {
    V b0 = bias ? (V) * (const VU *)(bias + j + c * W) : (V){0};
#pragma GCC unroll 8
    for (int u = 0; u < rb; u++) acc[u][c] = b0;
  }
  const float *a = A + (size_t)i * si;
  for (int p = 0; p < P; p++, a += sp) {
    V b[CB];
#pragma GCC unroll 8
    for (int c = 0; c < CB; c++) b[c] = *(const VU *)(B + (size_t)p * N + j + c * W);
#pragma GCC unroll 8
    for (int u = 0; u < rb; u++) {
      V x = (V){0} + a[u * si];
#pragma GCC unroll 8
      for (int c = 0; c < CB; c++) acc[u][c] += x * b[c];
    }
  }
#pragma GCC unroll 8
  for (int u = 0; u < rb; u++)
#pragma GCC unroll 8
    for (int c = 0; c < CB; c++) *(VU *)(C + (size_t)(i + u) * N + j + c * W) = acc[u][c];
}

// mm: see gemm.h. Blocks of RB rows, then one block of the rows left over.
static void CAT(mm_, SUF)(int M, int P, int N, const float *A, int si, int sp, const float *B, const float *bias,
                          float *C) {
  for (int j = 0; j < N; j += CB * W) {
    int i = 0;
    for (; i + RB <= M; i += RB) CAT(block_, SUF)(RB, i, j, P, N, A, si, sp, B, bias, C);
    switch (M - i) {
#if RB > 7
#error "mm's tail handles blocks of at most 7 rows"
#endif
      case 6: CAT(block_, SUF)(6, i, j, P, N, A, si, sp, B, bias, C); break;
      case 5: CAT(block_, SUF)(5, i, j, P, N, A, si, sp, B, bias, C); break;
      case 4: CAT(block_, SUF)(4, i, j, P, N, A, si, sp, B, bias, C); break;
      case 3: CAT(block_, SUF)(3, i, j, P, N, A, si, sp, B, bias, C); break;
      case 2: CAT(block_, SUF)(2, i, j, P, N, A, si, sp, B, bias, C); break;
      case 1: CAT(block_, SUF)(1, i, j, P, N, A, si, sp, B, bias, C); break;
    }
  }
}

// dots: see gemm.h.
static void CAT(dots_, SUF)(int M, int N, int K, const float *A, const float *Bt, const float *bias, float *C) {
  for (int i = 0; i < M; i++) {
    const float *a = A + (size_t)i * K;
    for (int n = 0; n < N; n++) {
      const float *b = Bt + (size_t)n * K;
      V s0 = {0}, s1 = {0};
      int k = 0;
      for (; k + 2 * W <= K; k += 2 * W) {
        s0 += *(const VU *)(a + k) * *(const VU *)(b + k);
        s1 += *(const VU *)(a + k + W) * *(const VU *)(b + k + W);
      }
      for (; k < K; k += W) s0 += *(const VU *)(a + k) * *(const VU *)(b + k);
      s0 += s1;
      float s = bias ? bias[n] : 0;
      for (int l = 0; l < W; l++) s += s0[l];
      C[(size_t)i * N + n] = s;
    }
  }
}

const gemm_kernels CAT(gemm_, SUF) = {CAT(mm_, SUF), CAT(dots_, SUF), W, CB * W, STR(SUF)};
