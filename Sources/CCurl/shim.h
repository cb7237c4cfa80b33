// libcurl for Swift, loaded on first use.
//
// Only `notes agent` and `notes fetch` talk to the network, but linking libcurl makes the
// dynamic loader map and relocate it and its ~25 dependencies (TLS, Kerberos, LDAP, SSH,
// IDN…) at the start of every command (docs/performance-history.md).
// So libcurl.so.4 is opened with dlopen the first time a transfer starts, and called
// through the function pointers below.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call, so each
// argument type gets a typed wrapper here.
// Related libcurl documentation: https://curl.se/libcurl/c/curl_easy_setopt.html
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                       curl_off_t upload_total, curl_off_t uploaded);

/// The libcurl entry points notes uses, filled by ccurl_load().
struct ccurl_library {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
    /// Why loading failed; NULL when every entry point was found.
    const char *error;
    /// `dlerror()`'s text, copied: it lives in the loading thread's storage, and the thread
    /// that loads may not be the one that reports.
    char message[512];
};

/// The one instance (a function-local static: Swift's importer emits functions a header
/// defines, not its global variables).
static inline struct ccurl_library *ccurl_shared(void) {
    static struct ccurl_library library;
    return &library;
}

static inline void ccurl_library_open(void) {
    struct ccurl_library *lib = ccurl_shared();
    void *handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        if (reason == NULL) reason = "libcurl.so.4 could not be loaded";
        strncpy(lib->message, reason, sizeof lib->message - 1);
        lib->error = lib->message;
        return;
    }
#define CCURL_FIND(field, symbol) \
    *(void **)(&lib->field) = dlsym(handle, symbol); \
    if (lib->field == NULL) { lib->error = "libcurl.so.4 lacks " symbol; return; }
    CCURL_FIND(global_init, "curl_global_init")
    CCURL_FIND(easy_init, "curl_easy_init")
    CCURL_FIND(easy_cleanup, "curl_easy_cleanup")
    CCURL_FIND(easy_perform, "curl_easy_perform")
    CCURL_FIND(easy_strerror, "curl_easy_strerror")
    CCURL_FIND(easy_setopt, "curl_easy_setopt")
    CCURL_FIND(easy_getinfo, "curl_easy_getinfo")
    CCURL_FIND(slist_append, "curl_slist_append")
    CCURL_FIND(slist_free_all, "curl_slist_free_all")
#undef CCURL_FIND
    lib->global_init(CURL_GLOBAL_DEFAULT);
}

/// Loads libcurl once (thread-safe) and runs curl_global_init. Returns NULL when ready,
/// else a message saying why it is not; no other ccurl_ function may be called then.
static inline const char *ccurl_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ccurl_library_open);
    return ccurl_shared()->error;
}

static inline CURL *ccurl_easy_init(void) { return ccurl_shared()->easy_init(); }
static inline void ccurl_easy_cleanup(CURL *handle) { ccurl_shared()->easy_cleanup(handle); }
static inline CURLcode ccurl_easy_perform(CURL *handle) { return ccurl_shared()->easy_perform(handle); }
static inline const char *ccurl_easy_strerror(CURLcode code) { return ccurl_shared()->easy_strerror(code); }
static inline struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line) {
    return ccurl_shared()->slist_append(list, line);
}
static inline void ccurl_slist_free_all(struct curl_slist *list) { ccurl_shared()->slist_free_all(list); }

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return ccurl_shared()->easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return ccurl_shared()->easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return ccurl_shared()->easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return ccurl_shared()->easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return ccurl_shared()->easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_body(CURL *handle, const char *bytes, curl_off_t count) {
    CURLcode code = ccurl_shared()->easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, count);
    if (code != CURLE_OK) return code;
    return ccurl_shared()->easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, bytes);
}
static inline CURLcode ccurl_setopt_write_callback(CURL *handle, ccurl_data_callback callback) {
    return ccurl_shared()->easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode ccurl_setopt_header_callback(CURL *handle, ccurl_data_callback callback) {
    return ccurl_shared()->easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}
static inline CURLcode ccurl_setopt_progress_callback(CURL *handle, ccurl_progress_callback callback) {
    return ccurl_shared()->easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return ccurl_shared()->easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return ccurl_shared()->easy_getinfo(handle, info, value);
}
