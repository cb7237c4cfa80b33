// SHA-256 from OpenSSL's libcrypto (already on every machine that has libcurl4-openssl-dev):
// non-variadic, non-deprecated entry points, so Swift sees plain typed functions.
#include <openssl/evp.h>
#include <stdint.h>

// The SHA-256 implementation, fetched once: the implicit fetch of EVP_sha256() on every call
// costs more than hashing a short text. (A function-local static: Swift's importer does not
// emit a header's file-scope statics.)
static inline const EVP_MD *notes_sha256_md(void) {
    static EVP_MD *fetched = NULL;
    EVP_MD *md = __atomic_load_n(&fetched, __ATOMIC_ACQUIRE);
    if (md) return md;
    EVP_MD *made = EVP_MD_fetch(NULL, "SHA256", NULL);
    if (!made) return EVP_sha256();
    EVP_MD *expected = NULL;
    if (__atomic_compare_exchange_n(&fetched, &expected, made, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return made;
    EVP_MD_free(made);  // another thread fetched it first
    return expected;
}

// SHA-256 of `count` bytes (a file's content version).
static inline int notes_sha256(const void *data, size_t count, unsigned char out[32]) {
    unsigned int length = 0;
    return EVP_Digest(data, count, out, &length, notes_sha256_md(), NULL) == 1 && length == 32;
}

// SHA-256 over `count` byte strings, each preceded by its length as 8 little-endian bytes
// (so no two different lists of strings hash the same input).
static inline int notes_sha256_parts(const uint8_t *const *parts, const size_t *lengths, int count, unsigned char out[32]) {
    const EVP_MD *md = notes_sha256_md();
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (!context) return 0;
    int ok = EVP_DigestInit_ex(context, md, NULL) == 1;
    for (int i = 0; ok && i < count; i++) {
        unsigned char prefix[8];
        uint64_t length = lengths[i];
        for (int b = 0; b < 8; b++) prefix[b] = (unsigned char)(length >> (8 * b));
        ok = EVP_DigestUpdate(context, prefix, sizeof prefix) == 1 && EVP_DigestUpdate(context, parts[i], lengths[i]) == 1;
    }
    unsigned int length = 0;
    ok = ok && EVP_DigestFinal_ex(context, out, &length) == 1 && length == 32;
    EVP_MD_CTX_free(context);
    return ok;
}
