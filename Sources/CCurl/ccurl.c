// Loads libcurl on first use and forwards each function the Swift code calls (see
// include/ccurl.h for why it is not linked). Every function here has libcurl's own name and
// prototype, so the compiler checks these against curl.h.
#include "ccurl.h"

#include <clibraryloader.h>
#include <stdio.h>

#define CCURL_FUNCTIONS(X)                                                                           \
    CLIBRARY_SAME(X, curl_global_init) CLIBRARY_SAME(X, curl_version_info)                           \
    CLIBRARY_SAME(X, curl_easy_setopt) CLIBRARY_SAME(X, curl_easy_getinfo)                           \
    CLIBRARY_SAME(X, curl_easy_init) CLIBRARY_SAME(X, curl_easy_cleanup)                             \
    CLIBRARY_SAME(X, curl_easy_reset) CLIBRARY_SAME(X, curl_easy_perform)                            \
    CLIBRARY_SAME(X, curl_easy_strerror) CLIBRARY_SAME(X, curl_slist_append)                         \
    CLIBRARY_SAME(X, curl_slist_free_all)

static struct {
    CCURL_FUNCTIONS(CLIBRARY_FIELD)
} curl;

/// Takes the version from curl_version_info.
static void ccurl_identify(struct clibrary *library) {
    curl_version_info_data *version = curl.curl_version_info ? curl.curl_version_info(CURLVERSION_NOW) : NULL;
    if (version != NULL && version->version != NULL) {
        snprintf(library->version, sizeof library->version, "%s", version->version);
    }
}

/// Refuses a libcurl older than 7.85 and initialises it globally (once, under the load lock,
/// before any thread makes a request).
static int ccurl_check(struct clibrary *library) {
    curl_version_info_data *version = curl.curl_version_info(CURLVERSION_NOW);
    if (version == NULL || version->version_num < 0x075500) {
        return clibrary_refuse(library, "is too old: 7.85 or newer is needed");
    }
    if (curl.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        return clibrary_refuse(library, "could not be initialised");
    }
    return 1;
}

// The soname Debian's libcurl4 (OpenSSL) installs, its GnuTLS sibling; macOS: its own.
CLIBRARY_DEFINE(ccurl, "libcurl", curl, CCURL_FUNCTIONS, NULL, ccurl_identify, ccurl_check,
#if defined(__APPLE__)
                "libcurl.4.dylib", "/usr/lib/libcurl.4.dylib"
#else
                "libcurl.so.4", "libcurl-gnutls.so.4"
#endif
)

// curl_easy_setopt and curl_easy_getinfo are variadic: each helper passes exactly one argument
// of the type the option documents.
typedef CURLcode (*setopt_function)(CURL *, CURLoption, ...);

static setopt_function setopt(void) {
    return ccurl_available() ? curl.curl_easy_setopt : NULL;
}

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    setopt_function real = setopt();
    return real != NULL ? real(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    setopt_function real = setopt();
    return real != NULL ? real(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    setopt_function real = setopt();
    return real != NULL ? real(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback function) {
    setopt_function real = setopt();
    return real != NULL ? real(handle, option, function) : CURLE_FAILED_INIT;
}

CURLcode ccurl_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback function) {
    setopt_function real = setopt();
    return real != NULL ? real(handle, CURLOPT_XFERINFOFUNCTION, function) : CURLE_FAILED_INIT;
}

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    // Parenthesised: curl.h may define curl_easy_getinfo as a type-checking macro.
    return ccurl_available() ? (curl.curl_easy_getinfo)(handle, info, value) : CURLE_FAILED_INIT;
}


// Hidden: libcurl's own calls between its functions must not come back through these.
#pragma GCC visibility push(hidden)

/// A forwarder returning `otherwise` when libcurl is missing.
#define CCURL_FORWARD(type, name, parameters, arguments, otherwise) \
    type name parameters { return ccurl_available() ? curl.name arguments : otherwise; }

CCURL_FORWARD(CURL *, curl_easy_init, (void), (), NULL)
CCURL_FORWARD(CURLcode, curl_easy_perform, (CURL *handle), (handle), CURLE_FAILED_INIT)
CCURL_FORWARD(const char *, curl_easy_strerror, (CURLcode code), (code), "libcurl is not loaded")
CCURL_FORWARD(struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *data), (list, data), NULL)

void curl_easy_cleanup(CURL *handle) {
    if (ccurl_available()) curl.curl_easy_cleanup(handle);
}

void curl_easy_reset(CURL *handle) {
    if (ccurl_available()) curl.curl_easy_reset(handle);
}

void curl_slist_free_all(struct curl_slist *list) {
    if (ccurl_available()) curl.curl_slist_free_all(list);
}

#pragma GCC visibility pop
