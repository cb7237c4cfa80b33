// SHA-256: OpenSSL's libcrypto, loaded when a process has much to hash; portable C code otherwise.
//
// libcrypto uses the CPU's SHA extensions (several times faster than the portable code
// below), and hashing every file is part of indexing. But linking it made the dynamic loader
// map and relocate its ~21,000 relocations at every process start
// (docs/performance-history.md), while most commands hash nothing but the workspace
// path that names the index folder. So libcrypto.so.3 is opened with dlopen only once a
// process has hashed `NOTES_SHA256_PORTABLE_BUDGET` bytes; until then, and for inputs shorter
// than `NOTES_SHA256_SHORT` bytes always (where libcrypto's per-call setup would cost more
// than the hashing anyway), the portable FIPS 180-4 code below hashes. Both give the same
// digests (tests compare them on every length).
// Related documentation: https://docs.openssl.org/3.0/man3/EVP_DigestInit/
#include <dlfcn.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// Inputs shorter than this many bytes (with the parts' length prefixes) are hashed by the
/// portable code.
#define NOTES_SHA256_SHORT 128

/// Bytes of longer inputs a process hashes with the portable code before it opens
/// libcrypto. Opening it costs about what the portable code takes for half a megabyte: a
/// command that re-reads a few changed notes (a search right after an edit) never loads
/// it, and a large index loads it after its first quarter megabyte.
#define NOTES_SHA256_PORTABLE_BUDGET (256 * 1024)

/// `NOTES_SHA256_PORTABLE_BUDGET`, for Swift (which does not import an expression macro).
static inline size_t notes_sha256_portable_budget(void) { return NOTES_SHA256_PORTABLE_BUDGET; }

// MARK: - Portable SHA-256 (FIPS 180-4, section 6.2)

typedef struct {
    uint32_t state[8];
    uint64_t length;       // bytes hashed so far
    uint8_t block[64];
    size_t used;           // bytes waiting in `block`
} notes_sha256_portable;

static inline uint32_t notes_sha256_rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static inline void notes_sha256_compress(uint32_t state[8], const uint8_t block[64]) {
    static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    };
    uint32_t w[64];
    for (int t = 0; t < 16; t++) {
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 | (uint32_t)block[4 * t + 2] << 8 | block[4 * t + 3];
    }
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = notes_sha256_rotr(w[t - 15], 7) ^ notes_sha256_rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = notes_sha256_rotr(w[t - 2], 17) ^ notes_sha256_rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = h + (notes_sha256_rotr(e, 6) ^ notes_sha256_rotr(e, 11) ^ notes_sha256_rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[t] + w[t];
        uint32_t t2 = (notes_sha256_rotr(a, 2) ^ notes_sha256_rotr(a, 13) ^ notes_sha256_rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    state[4] += e; state[5] += f; state[6] += g; state[7] += h;
}

static inline void notes_sha256_portable_init(notes_sha256_portable *s) {
    static const uint32_t initial[8] = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    memcpy(s->state, initial, sizeof initial);
    s->length = 0;
    s->used = 0;
}

static inline void notes_sha256_portable_update(notes_sha256_portable *s, const void *data, size_t count) {
    const uint8_t *bytes = (const uint8_t *)data;
    s->length += count;
    while (count > 0) {
        size_t take = 64 - s->used < count ? 64 - s->used : count;
        memcpy(s->block + s->used, bytes, take);
        s->used += take;
        bytes += take;
        count -= take;
        if (s->used == 64) {
            notes_sha256_compress(s->state, s->block);
            s->used = 0;
        }
    }
}

static inline void notes_sha256_portable_final(notes_sha256_portable *s, unsigned char out[32]) {
    uint64_t bits = s->length * 8;
    // The padding: 0x80, zeros up to 8 bytes before a block's end (in a second block when
    // fewer than 9 bytes are left), then the message length in bits, big-endian.
    s->block[s->used++] = 0x80;
    if (s->used > 56) {
        memset(s->block + s->used, 0, 64 - s->used);
        notes_sha256_compress(s->state, s->block);
        s->used = 0;
    }
    memset(s->block + s->used, 0, 56 - s->used);
    for (int i = 0; i < 8; i++) s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    notes_sha256_compress(s->state, s->block);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->state[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->state[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->state[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->state[i];
    }
}

// SHA-256 of `count` bytes by the portable code alone, whatever the length (used below for
// short inputs; tests compare it with libcrypto's).
static inline void notes_sha256_portable_digest(const void *data, size_t count, unsigned char out[32]) {
    notes_sha256_portable state;
    notes_sha256_portable_init(&state);
    notes_sha256_portable_update(&state, data, count);
    notes_sha256_portable_final(&state, out);
}

// MARK: - libcrypto, opened on first use

/// The libcrypto entry points used, filled by notes_crypto_open().
struct notes_crypto_library {
    EVP_MD *(*md_fetch)(OSSL_LIB_CTX *context, const char *algorithm, const char *properties);
    const EVP_MD *md;
    int (*digest)(const void *data, size_t count, unsigned char *out, unsigned int *size, const EVP_MD *type, ENGINE *engine);
    EVP_MD_CTX *(*context_new)(void);
    void (*context_free)(EVP_MD_CTX *context);
    int (*init)(EVP_MD_CTX *context, const EVP_MD *type, ENGINE *engine);
    int (*update)(EVP_MD_CTX *context, const void *data, size_t count);
    int (*final)(EVP_MD_CTX *context, unsigned char *out, unsigned int *size);
    /// Why loading failed; NULL when every entry point was found.
    const char *error;
    /// Set once everything above is in place (read without the once-lock).
    int ready;
    /// `dlerror()`'s text, copied: it lives in the loading thread's storage, and the thread
    /// that loads may not be the one that reports.
    char message[512];
};

/// The one instance (a function-local static: Swift's importer emits functions a header
/// defines, not its global variables).
static inline struct notes_crypto_library *notes_crypto_shared(void) {
    static struct notes_crypto_library library;
    return &library;
}

static inline void notes_crypto_open(void) {
    struct notes_crypto_library *lib = notes_crypto_shared();
    // NOTES_LIBCRYPTO names another library file: the tests' way to see a machine without it.
    const char *name = getenv("NOTES_LIBCRYPTO");
    if (name == NULL || name[0] == 0) name = "libcrypto.so.3";
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        if (reason == NULL) reason = "libcrypto.so.3 could not be loaded";
        strncpy(lib->message, reason, sizeof lib->message - 1);
        lib->error = lib->message;
        return;
    }
    // No cleanup at exit (OPENSSL_INIT_NO_ATEXIT): a process that exits while another of
    // its threads is still hashing (an error path ends the command while the indexer's
    // threads run) had libcrypto torn down under that thread, which then crashed in
    // pthread_rwlock_wrlock on freed state (issue 34 item 5: rc 139, 1-2 in 100 runs).
    // Must come before any other call into the library, which would register the cleanup.
    int (*init_crypto)(uint64_t options, const void *settings);
    *(void **)(&init_crypto) = dlsym(handle, "OPENSSL_init_crypto");
    if (init_crypto != NULL) (void)init_crypto(0x00080000L /* OPENSSL_INIT_NO_ATEXIT */, NULL);
#define NOTES_CRYPTO_FIND(field, symbol) \
    *(void **)(&lib->field) = dlsym(handle, symbol); \
    if (lib->field == NULL) { lib->error = "libcrypto.so.3 lacks " symbol; return; }
    NOTES_CRYPTO_FIND(md_fetch, "EVP_MD_fetch")
    NOTES_CRYPTO_FIND(digest, "EVP_Digest")
    NOTES_CRYPTO_FIND(context_new, "EVP_MD_CTX_new")
    NOTES_CRYPTO_FIND(context_free, "EVP_MD_CTX_free")
    NOTES_CRYPTO_FIND(init, "EVP_DigestInit_ex")
    NOTES_CRYPTO_FIND(update, "EVP_DigestUpdate")
    NOTES_CRYPTO_FIND(final, "EVP_DigestFinal_ex")
#undef NOTES_CRYPTO_FIND
    // Fetched once: the implicit fetch of EVP_sha256() on every call costs more than hashing
    // a short text.
    lib->md = lib->md_fetch(NULL, "SHA256", NULL);
    if (lib->md == NULL) lib->error = "libcrypto.so.3 has no SHA256 implementation";
    else __atomic_store_n(&lib->ready, 1, __ATOMIC_RELEASE);
}

/// Loads libcrypto once (thread-safe). Returns NULL when ready, else a message saying why
/// it is not.
static inline const char *notes_crypto_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, notes_crypto_open);
    return notes_crypto_shared()->error;
}

// MARK: - The digests Swift calls

/// Whether an input of `count` bytes is hashed by the portable code: a short one always, a
/// longer one while the process's portable budget lasts (thread-safe).
static inline int notes_sha256_portable_takes(size_t count) {
    static size_t spent;  // a function-local static: one per process, like the library
    if (count < NOTES_SHA256_SHORT) return 1;
    // Opened already (a large refresh opens it on a thread of its own as it starts).
    if (__atomic_load_n(&notes_crypto_shared()->ready, __ATOMIC_ACQUIRE)) return 0;
    if (__atomic_load_n(&spent, __ATOMIC_RELAXED) > NOTES_SHA256_PORTABLE_BUDGET) return 0;
    return __atomic_add_fetch(&spent, count, __ATOMIC_RELAXED) <= NOTES_SHA256_PORTABLE_BUDGET;
}

// SHA-256 of `count` bytes by libcrypto (loaded if it is not yet). Returns 0 on failure
// (libcrypto missing or out of memory: `notes_crypto_load()` says which).
static inline int notes_sha256_libcrypto(const void *data, size_t count, unsigned char out[32]) {
    if (notes_crypto_load() != NULL) return 0;
    struct notes_crypto_library *lib = notes_crypto_shared();
    unsigned int length = 0;
    return lib->digest(data, count, out, &length, lib->md, NULL) == 1 && length == 32;
}

// SHA-256 of `count` bytes (a file's content version). Returns 0 on failure (libcrypto
// missing or out of memory: `notes_crypto_load()` says which).
static inline int notes_sha256(const void *data, size_t count, unsigned char out[32]) {
    if (notes_sha256_portable_takes(count)) {
        notes_sha256_portable_digest(data, count, out);
        return 1;
    }
    return notes_sha256_libcrypto(data, count, out);
}

// A part's length as the 8 little-endian bytes that precede it in `notes_sha256_parts`.
static inline void notes_sha256_length_prefix(size_t length, unsigned char prefix[8]) {
    for (int b = 0; b < 8; b++) prefix[b] = (unsigned char)((uint64_t)length >> (8 * b));
}

// SHA-256 over `count` byte strings, each preceded by its length as 8 little-endian bytes
// (so no two different lists of strings hash the same input).
static inline int notes_sha256_parts(const uint8_t *const *parts, const size_t *lengths, int count, unsigned char out[32]) {
    size_t total = 0;
    for (int i = 0; i < count; i++) total += 8 + lengths[i];
    if (notes_sha256_portable_takes(total)) {
        notes_sha256_portable state;
        notes_sha256_portable_init(&state);
        for (int i = 0; i < count; i++) {
            unsigned char prefix[8];
            notes_sha256_length_prefix(lengths[i], prefix);
            notes_sha256_portable_update(&state, prefix, sizeof prefix);
            notes_sha256_portable_update(&state, parts[i], lengths[i]);
        }
        notes_sha256_portable_final(&state, out);
        return 1;
    }
    if (notes_crypto_load() != NULL) return 0;
    struct notes_crypto_library *lib = notes_crypto_shared();
    EVP_MD_CTX *context = lib->context_new();
    if (!context) return 0;
    int ok = lib->init(context, lib->md, NULL) == 1;
    for (int i = 0; ok && i < count; i++) {
        unsigned char prefix[8];
        notes_sha256_length_prefix(lengths[i], prefix);
        ok = lib->update(context, prefix, sizeof prefix) == 1 && lib->update(context, parts[i], lengths[i]) == 1;
    }
    unsigned int length = 0;
    ok = ok && lib->final(context, out, &length) == 1 && length == 32;
    lib->context_free(context);
    return ok;
}
