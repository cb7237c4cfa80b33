#include "vector_kernels.h"

#include <float.h>
#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

int notes_kernel_level(void) {
    static int level = -1;
    int known = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (known >= 0) return known;
    int found = NOTES_KERNELS_PORTABLE;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        found = NOTES_KERNELS_AVX512;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        found = NOTES_KERNELS_AVX2;
#endif
    __atomic_store_n(&level, found, __ATOMIC_RELAXED);
    return found;
}

// ---------------------------------------------------------------- portable

static void products_portable(
    int m, int n, int k, const float *x, const float *w, float beta, float *c, int ldc) {
    for (int i = 0; i < m; i++) {
        const float *xi = x + (size_t)i * k;
        for (int j = 0; j < n; j++) {
            const float *wj = w + (size_t)j * k;
            float sum = 0;
            for (int p = 0; p < k; p++) sum += xi[p] * wj[p];
            float *out = c + (size_t)i * ldc + j;
            *out = beta == 0 ? sum : *out + sum;
        }
    }
}

static void dots_portable(
    const float *query, const int8_t *rows, const float *scales, long count, int dims,
    float *out) {
    for (long r = 0; r < count; r++) {
        const int8_t *row = rows + (size_t)r * dims;
        // Eight running sums, which a compiler can keep in one vector register.
        float lanes[8] = {0};
        int p = 0;
        for (; p + 8 <= dims; p += 8)
            for (int l = 0; l < 8; l++) lanes[l] += query[p + l] * (float)row[p + l];
        float sum = 0;
        for (int l = 0; l < 8; l++) sum += lanes[l];
        for (; p < dims; p++) sum += query[p] * (float)row[p];
        out[r] = sum * scales[r];
    }
}

#if defined(__x86_64__)

static inline void store(float *out, float beta, float sum) {
    *out = beta == 0 ? sum : *out + sum;
}

// ---------------------------------------------------------------- AVX-512

__attribute__((target("avx512f"))) static float row_dot512(
    const float *a, const float *b, int k) {
    __m512 acc = _mm512_setzero_ps();
    int p = 0;
    for (; p + 16 <= k; p += 16)
        acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + p), _mm512_loadu_ps(b + p), acc);
    float sum = _mm512_reduce_add_ps(acc);
    for (; p < k; p++) sum += a[p] * b[p];
    return sum;
}

// Blocks of 4 inputs × 4 outputs: each weight and input vector loaded once feeds 4 products.
// A query's few rows read each weight once, mostly from memory rather than the caches: the
// hardware prefetcher does not run far enough ahead of four interleaved rows, so the rows two
// blocks ahead are asked for while these are multiplied (on the first pass over a block only;
// later passes find them cached). Prefetching past the matrix's end is harmless.
static inline void prefetch_rows_ahead(const float *w0, int k, int p) {
    for (int b = 8; b < 12; b++) _mm_prefetch((const char *)(w0 + (size_t)b * k + p), _MM_HINT_T0);
}

__attribute__((target("avx512f"))) static void products_avx512(
    int m, int n, int k, const float *x, const float *w, float beta, float *c, int ldc) {
    int k16 = k & ~15;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        const float *w0 = w + (size_t)j * k;
        int i = 0;
        for (; i + 4 <= m; i += 4) {
            const float *x0 = x + (size_t)i * k;
            __m512 acc[4][4];
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++) acc[a][b] = _mm512_setzero_ps();
            for (int p = 0; p < k16; p += 16) {
                __m512 wv[4], xv[4];
                for (int b = 0; b < 4; b++) wv[b] = _mm512_loadu_ps(w0 + (size_t)b * k + p);
                if (i == 0) prefetch_rows_ahead(w0, k, p);
                for (int a = 0; a < 4; a++) xv[a] = _mm512_loadu_ps(x0 + (size_t)a * k + p);
                for (int a = 0; a < 4; a++)
                    for (int b = 0; b < 4; b++) acc[a][b] = _mm512_fmadd_ps(xv[a], wv[b], acc[a][b]);
            }
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++) {
                    float sum = _mm512_reduce_add_ps(acc[a][b]);
                    for (int p = k16; p < k; p++) sum += x0[(size_t)a * k + p] * w0[(size_t)b * k + p];
                    store(c + (size_t)(i + a) * ldc + j + b, beta, sum);
                }
        }
        for (; i < m; i++) {
            const float *xi = x + (size_t)i * k;
            __m512 acc[4];
            for (int b = 0; b < 4; b++) acc[b] = _mm512_setzero_ps();
            for (int p = 0; p < k16; p += 16) {
                __m512 xv = _mm512_loadu_ps(xi + p);
                for (int b = 0; b < 4; b++)
                    acc[b] = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w0 + (size_t)b * k + p), acc[b]);
                if (i == 0) prefetch_rows_ahead(w0, k, p);
            }
            for (int b = 0; b < 4; b++) {
                float sum = _mm512_reduce_add_ps(acc[b]);
                for (int p = k16; p < k; p++) sum += xi[p] * w0[(size_t)b * k + p];
                store(c + (size_t)i * ldc + j + b, beta, sum);
            }
        }
    }
    for (; j < n; j++)
        for (int i = 0; i < m; i++)
            store(c + (size_t)i * ldc + j, beta, row_dot512(x + (size_t)i * k, w + (size_t)j * k, k));
}

// Four rows at a time: four independent sums keep the FMA unit busy.
__attribute__((target("avx512f"))) static void dots_avx512(
    const float *query, const int8_t *rows, const float *scales, long count, int dims,
    float *out) {
    int d16 = dims & ~15;
    long r = 0;
    for (; r + 4 <= count; r += 4) {
        const int8_t *base = rows + (size_t)r * dims;
        __m512 acc[4];
        for (int a = 0; a < 4; a++) acc[a] = _mm512_setzero_ps();
        for (int p = 0; p < d16; p += 16) {
            __m512 q = _mm512_loadu_ps(query + p);
            for (int a = 0; a < 4; a++) {
                __m128i bytes = _mm_loadu_si128((const __m128i *)(base + (size_t)a * dims + p));
                __m512 v = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(bytes));
                acc[a] = _mm512_fmadd_ps(q, v, acc[a]);
            }
        }
        for (int a = 0; a < 4; a++) {
            float sum = _mm512_reduce_add_ps(acc[a]);
            for (int p = d16; p < dims; p++) sum += query[p] * (float)base[(size_t)a * dims + p];
            out[r + a] = sum * scales[r + a];
        }
    }
    dots_portable(query, rows + (size_t)r * dims, scales + r, count - r, dims, out + r);
}

// With AVX-512BW: the query rounded to 16-bit integers (its largest value to the largest
// step that keeps a row's sum in 32 bits; relative error below 1e-4 of the largest term),
// each row's bytes widened to 16 bits and multiplied pairwise into 32-bit sums
// (vpmaddwd): half the instructions of widening every byte to a float, on a scan that
// reads every stored vector.
__attribute__((target("avx512f,avx512bw"))) static void dots_madd512(
    const float *query, const int8_t *rows, const float *scales, long count, int dims,
    float *out) {
    float top = 0;
    int finite = 1;
    for (int p = 0; p < dims; p++) {
        float a = query[p] < 0 ? -query[p] : query[p];
        if (!(a <= FLT_MAX)) finite = 0;  // NaN or infinite
        if (a > top) top = a;
    }
    // A byte may be -128 (a damaged or foreign vector file): the sums stay in 32 bits.
    long limit = 2147483647L / ((long)(dims > 0 ? dims : 1) * 128);
    int steps = limit < 32767 ? (int)limit : 32767;
    float unit = top / (float)steps;
    if (!finite || !(unit > 0) || dims > 2048) {
        // A query of zeros, NaN or infinities, or so small that its steps vanish, or more
        // dimensions than a model here has (the query is kept on the stack): the float
        // kernel, which gives what plain arithmetic gives.
        dots_avx512(query, rows, scales, count, dims, out);
        return;
    }
    int d32 = dims & ~31;
    int16_t q[dims > 0 ? dims : 1];
    for (int p = 0; p < dims; p++) {
        float v = query[p] / unit;
        q[p] = (int16_t)(v < 0 ? v - 0.5f : v + 0.5f);
    }
    long r = 0;
    for (; r + 4 <= count; r += 4) {
        const int8_t *base = rows + (size_t)r * dims;
        __m512i acc[4];
        for (int a = 0; a < 4; a++) acc[a] = _mm512_setzero_si512();
        for (int p = 0; p < d32; p += 32) {
            __m512i qv = _mm512_loadu_si512((const void *)(q + p));
            for (int a = 0; a < 4; a++) {
                __m256i bytes = _mm256_loadu_si256((const __m256i *)(base + (size_t)a * dims + p));
                // Rows 16 ahead: the hardware prefetcher stops at every 4 KB page.
                _mm_prefetch((const char *)(base + (size_t)(a + 16) * dims + p), _MM_HINT_T0);
                acc[a] = _mm512_add_epi32(acc[a], _mm512_madd_epi16(qv, _mm512_cvtepi8_epi16(bytes)));
            }
        }
        for (int a = 0; a < 4; a++) {
            long sum = _mm512_reduce_add_epi32(acc[a]);
            for (int p = d32; p < dims; p++) sum += (long)q[p] * base[(size_t)a * dims + p];
            out[r + a] = (float)sum * unit * scales[r + a];
        }
    }
    for (; r < count; r++) {
        const int8_t *row = rows + (size_t)r * dims;
        long sum = 0;
        for (int p = 0; p < dims; p++) sum += (long)q[p] * row[p];
        out[r] = (float)sum * unit * scales[r];
    }
}

// ---------------------------------------------------------------- AVX2 + FMA

__attribute__((target("avx2,fma"))) static float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// Blocks of 2 inputs × 4 outputs (8 sums and 6 loads fit AVX2's 16 registers).
__attribute__((target("avx2,fma"))) static void products_avx2(
    int m, int n, int k, const float *x, const float *w, float beta, float *c, int ldc) {
    int k8 = k & ~7;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        const float *w0 = w + (size_t)j * k;
        int i = 0;
        for (; i < m; i += 2) {
            int rows = m - i >= 2 ? 2 : 1;
            const float *x0 = x + (size_t)i * k;
            const float *x1 = rows == 2 ? x0 + k : x0;
            __m256 acc[2][4];
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 4; b++) acc[a][b] = _mm256_setzero_ps();
            for (int p = 0; p < k8; p += 8) {
                __m256 xa = _mm256_loadu_ps(x0 + p), xb = _mm256_loadu_ps(x1 + p);
                for (int b = 0; b < 4; b++) {
                    __m256 wv = _mm256_loadu_ps(w0 + (size_t)b * k + p);
                    acc[0][b] = _mm256_fmadd_ps(xa, wv, acc[0][b]);
                    acc[1][b] = _mm256_fmadd_ps(xb, wv, acc[1][b]);
                }
            }
            for (int a = 0; a < rows; a++)
                for (int b = 0; b < 4; b++) {
                    const float *xi = a == 0 ? x0 : x1;
                    float sum = hsum256(acc[a][b]);
                    for (int p = k8; p < k; p++) sum += xi[p] * w0[(size_t)b * k + p];
                    store(c + (size_t)(i + a) * ldc + j + b, beta, sum);
                }
        }
    }
    if (j < n) products_portable(m, n - j, k, x, w + (size_t)j * k, beta, c + j, ldc);
}

__attribute__((target("avx2,fma"))) static void dots_avx2(
    const float *query, const int8_t *rows, const float *scales, long count, int dims,
    float *out) {
    int d8 = dims & ~7;
    long r = 0;
    for (; r + 4 <= count; r += 4) {
        const int8_t *base = rows + (size_t)r * dims;
        __m256 acc[4];
        for (int a = 0; a < 4; a++) acc[a] = _mm256_setzero_ps();
        for (int p = 0; p < d8; p += 8) {
            __m256 q = _mm256_loadu_ps(query + p);
            for (int a = 0; a < 4; a++) {
                __m128i bytes = _mm_loadl_epi64((const __m128i *)(base + (size_t)a * dims + p));
                __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
                acc[a] = _mm256_fmadd_ps(q, v, acc[a]);
            }
        }
        for (int a = 0; a < 4; a++) {
            float sum = hsum256(acc[a]);
            for (int p = d8; p < dims; p++) sum += query[p] * (float)base[(size_t)a * dims + p];
            out[r + a] = sum * scales[r + a];
        }
    }
    dots_portable(query, rows + (size_t)r * dims, scales + r, count - r, dims, out + r);
}

#endif

// ---------------------------------------------------------------- dispatch

void notes_products_nt(
    int level, int m, int n, int k, const float *x, const float *w, float beta, float *c,
    int ldc) {
#if defined(__x86_64__)
    if (level >= NOTES_KERNELS_AVX512) return products_avx512(m, n, k, x, w, beta, c, ldc);
    if (level >= NOTES_KERNELS_AVX2) return products_avx2(m, n, k, x, w, beta, c, ldc);
#endif
    (void)level;
    products_portable(m, n, k, x, w, beta, c, ldc);
}

void notes_int8_dots(
    int level, const float *query, const int8_t *rows, const float *scales, long count,
    int dims, float *out) {
#if defined(__x86_64__)
    if (level >= NOTES_KERNELS_AVX512) {
        static int bw = -1;
        int known = __atomic_load_n(&bw, __ATOMIC_RELAXED);
        if (known < 0) {
            __builtin_cpu_init();
            known = __builtin_cpu_supports("avx512bw") ? 1 : 0;
            __atomic_store_n(&bw, known, __ATOMIC_RELAXED);
        }
        if (known) return dots_madd512(query, rows, scales, count, dims, out);
        return dots_avx512(query, rows, scales, count, dims, out);
    }
    if (level >= NOTES_KERNELS_AVX2) return dots_avx2(query, rows, scales, count, dims, out);
#endif
    (void)level;
    dots_portable(query, rows, scales, count, dims, out);
}
