// libcurl for Swift: curl_easy_setopt and curl_easy_getinfo are variadic, which Swift
// cannot call, so each argument type gets a typed wrapper here.
// Related libcurl documentation: https://curl.se/libcurl/c/curl_easy_setopt.html
#include <curl/curl.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ccurl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                       curl_off_t upload_total, curl_off_t uploaded);

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_setopt_body(CURL *handle, const char *bytes, curl_off_t count) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, count);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, bytes);
}
static inline CURLcode ccurl_setopt_write_callback(CURL *handle, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode ccurl_setopt_header_callback(CURL *handle, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}
static inline CURLcode ccurl_setopt_progress_callback(CURL *handle, ccurl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
