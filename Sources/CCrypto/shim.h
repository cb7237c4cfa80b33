// SHA-256 from OpenSSL's libcrypto (already on every machine that has libcurl4-openssl-dev):
// one non-variadic, non-deprecated entry point, so Swift sees a plain typed function.
#include <openssl/evp.h>

static inline int notes_sha256(const void *data, size_t count, unsigned char out[32]) {
    unsigned int length = 0;
    return EVP_Digest(data, count, out, &length, EVP_sha256(), NULL) == 1 && length == 32;
}
