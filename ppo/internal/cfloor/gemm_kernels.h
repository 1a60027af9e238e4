// gemm_kernels.h: the body of one vector width's products, included by
// gemm.c once per width with V (the vector type), VU (its unaligned
// alias), W (its floats), RB and CB (the register block: RB rows by CB
// vectors) and SUF (the names' suffix) defined.
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(a) #a
#define STR(a) STR_(a)

// mm: see gemm.h. Each block of RB rows and CB·W columns keeps its RB·CB
// accumulators in registers through the whole sum over p.
static void CAT(mm_, SUF)(int M, int P, int N, const float *A, int si, int sp, const float *B, const float *bias,
                          float *C) {
  for (int j = 0; j < N; j += CB * W) {
    int i = 0;
    for (; i + RB <= M; i += RB) {
      V acc[RB][CB];
#pragma GCC unroll 8
      for (int c = 0; c < CB; c++) {
        V b0 = bias ? (V) * (const VU *)(bias + j + c * W) : (V){0};
#pragma GCC unroll 8
        for (int u = 0; u < RB; u++) acc[u][c] = b0;
      }
      const float *a = A + (size_t)i * si;
      for (int p = 0; p < P; p++, a += sp) {
        V b[CB];
#pragma GCC unroll 8
        for (int c = 0; c < CB; c++) b[c] = *(const VU *)(B + (size_t)p * N + j + c * W);
#pragma GCC unroll 8
        for (int u = 0; u < RB; u++) {
          V x = (V){0} + a[u * si];
#pragma GCC unroll 8
          for (int c = 0; c < CB; c++) acc[u][c] += x * b[c];
        }
      }
#pragma GCC unroll 8
      for (int u = 0; u < RB; u++)
#pragma GCC unroll 8
        for (int c = 0; c < CB; c++) *(VU *)(C + (size_t)(i + u) * N + j + c * W) = acc[u][c];
    }
    for (; i < M; i++) {  // the rows left over, one at a time
      V acc[CB];
      for (int c = 0; c < CB; c++) acc[c] = bias ? (V) * (const VU *)(bias + j + c * W) : (V){0};
      const float *a = A + (size_t)i * si;
      for (int p = 0; p < P; p++, a += sp) {
        V x = (V){0} + *a;
        for (int c = 0; c < CB; c++) acc[c] += x * *(const VU *)(B + (size_t)p * N + j + c * W);
      }
      for (int c = 0; c < CB; c++) *(VU *)(C + (size_t)i * N + j + c * W) = acc[c];
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
