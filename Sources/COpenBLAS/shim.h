// OpenBLAS's single-precision matrix product for the embedding model (NotesEmbedding),
// loaded by the first batch of passages (a query's few tokens never need it), and optional:
// without it the built-in kernels (CVectorKernels) do every product, more slowly. On macOS this would be Accelerate's cblas_sgemm instead (same
// arguments, `-framework Accelerate`); only Linux is built and tested today.
//
// libopenblas.so.0 (Debian: libopenblas0, pulled in by libopenblas-dev) is opened with dlopen
// rather than linked, for two reasons:
// - Linking it makes every notes command map and relocate it and libgfortran/libquadmath at
//   start, though only embedding uses it (the same reason CCurl and CCrypto load late).
// - Debian's OpenBLAS 0.3.21 (DYNAMIC_ARCH) picks its kernels when it loads, and does not
//   know recent Xeons: it falls back to "Prescott" (SSE3) kernels, much slower than its
//   AVX-512 ones (docs/performance-history.md). Loading late lets us set
//   OPENBLAS_CORETYPE from the CPU's features first (unless the person set it).
// The CBLAS constants and the prototype are declared here (the stable CBLAS ABI), so no
// header from a particular BLAS package is needed to build.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COPENBLAS_ROW_MAJOR = 101, COPENBLAS_NO_TRANS = 111, COPENBLAS_TRANS = 112 };

typedef void (*copenblas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k,
                                   float alpha, const float *a, int lda, const float *b, int ldb,
                                   float beta, float *c, int ldc);

struct copenblas_library {
    copenblas_sgemm_fn sgemm;
    void (*set_num_threads)(int);
    char *(*get_corename)(void);
    /// Why loading failed; NULL when ready.
    const char *error;
    char message[512];
};

static inline struct copenblas_library *copenblas_shared(void) {
    static struct copenblas_library library;
    return &library;
}

/// The OpenBLAS kernel family for this CPU, when OpenBLAS 0.3.21 might not recognise it.
static inline const char *copenblas_core_for_cpu(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
#endif
    return NULL;
}

static inline void copenblas_set_environment(void) {
    if (getenv("OPENBLAS_CORETYPE") == NULL) {
        const char *core = copenblas_core_for_cpu();
        if (core != NULL) setenv("OPENBLAS_CORETYPE", core, 0);
    }
    // Its own thread pool would start (and spin) when the library loads; it is never used.
    if (getenv("OPENBLAS_NUM_THREADS") == NULL) setenv("OPENBLAS_NUM_THREADS", "1", 0);
}

/// Sets the variables OpenBLAS reads when it loads, unless the person set them. Called when
/// a model loads (and again, doing nothing, before the library opens): `setenv` while other
/// threads read the environment is unsafe, so it runs once, early, not at the first batch.
static inline void copenblas_prepare_environment(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, copenblas_set_environment);
}

static inline void copenblas_open(void) {
    struct copenblas_library *lib = copenblas_shared();
    copenblas_prepare_environment();
    // NOTES_OPENBLAS_LIBRARY names another build (a path, or a soname such as
    // libopenblas.so.3 where a distribution calls it that).
    const char *chosen = getenv("NOTES_OPENBLAS_LIBRARY");
    const char *name = chosen != NULL && chosen[0] != '\0' ? chosen : "libopenblas.so.0";
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL && name != chosen) handle = dlopen("libopenblas.so", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        if (reason != NULL) {
            strncpy(lib->message, reason, sizeof lib->message - 1);
        } else {
            snprintf(lib->message, sizeof lib->message, "%s could not be loaded", name);
        }
        lib->error = lib->message;
        return;
    }
    *(void **)(&lib->sgemm) = dlsym(handle, "cblas_sgemm");
    *(void **)(&lib->set_num_threads) = dlsym(handle, "openblas_set_num_threads");
    *(void **)(&lib->get_corename) = dlsym(handle, "openblas_get_corename");
    if (lib->sgemm == NULL) {
        snprintf(lib->message, sizeof lib->message, "%s lacks cblas_sgemm", name);
        lib->error = lib->message;
        return;
    }
    // Parallelism comes from notes's own threads (one batch each), so BLAS runs one thread.
    if (lib->set_num_threads != NULL) lib->set_num_threads(1);
}

/// Loads OpenBLAS once (thread-safe). Returns NULL when ready, else why not; no other
/// copenblas_ function may be called then.
static inline const char *copenblas_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, copenblas_open);
    return copenblas_shared()->error;
}

/// The kernel family OpenBLAS runs ("SkylakeX", "Haswell", …), for diagnostics.
static inline const char *copenblas_core_name(void) {
    struct copenblas_library *lib = copenblas_shared();
    return lib->get_corename != NULL ? lib->get_corename() : "unknown";
}

/// C = alpha · op(A) · op(B) + beta · C, row-major (cblas_sgemm).
static inline void copenblas_sgemm(int trans_a, int trans_b, int m, int n, int k, float alpha,
                                   const float *a, int lda, const float *b, int ldb, float beta,
                                   float *c, int ldc) {
    copenblas_shared()->sgemm(COPENBLAS_ROW_MAJOR, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb,
                              beta, c, ldc);
}
