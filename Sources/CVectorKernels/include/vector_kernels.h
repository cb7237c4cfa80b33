// Float kernels for short inputs, where a general BLAS spends its time on set-up: the
// embedding model's matrix products for a few tokens (a search query) and the int8
// similarity scan over every stored passage vector (NotesIndex's VectorTable).
//
// OpenBLAS's sgemm packs both operands before multiplying: for a query of ten tokens that
// copy of the model's weights costs more than the arithmetic. These kernels read the weights
// in place. Swift compiles for the baseline x86-64 (SSE2) and cannot choose instructions by
// CPU, so each kernel is written for AVX-512 and for AVX2+FMA and picked at run time from the
// CPU's features, with portable C as the fallback on other CPUs and architectures.
#ifndef NOTES_VECTOR_KERNELS_H
#define NOTES_VECTOR_KERNELS_H

#include <stdint.h>

/// Instruction sets the kernels can use, best first; `notes_kernel_level()` says which one
/// this CPU runs.
enum notes_kernel_level {
    NOTES_KERNELS_AVX512 = 2,
    NOTES_KERNELS_AVX2 = 1,
    NOTES_KERNELS_PORTABLE = 0,
};

/// The best level this CPU supports.
int notes_kernel_level(void);

/// C = X · Wᵀ + beta · C, all row-major: X is m × k, W is n × k (a weight matrix stored one
/// output per row, as safetensors holds a linear layer), C is m × n with rows `ldc` apart.
/// `beta` is 0 (C is overwritten) or 1 (added to, e.g. a bias already in C). `level` is the
/// kernel to use, at most `notes_kernel_level()` (tests run each one).
void notes_products_nt(
    int level, int m, int n, int k, const float *x, const float *w, float beta, float *c, int ldc);

/// out[r] = scales[r] · (query · rows[r]) for `count` int8 rows of `dims` values each. With
/// AVX-512BW the query is first rounded to 16-bit steps of its largest value (results within
/// 1e-4 of that value times a row's largest product).
void notes_int8_dots(
    int level, const float *query, const int8_t *rows, const float *scales, long count,
    int dims, float *out);

#endif
