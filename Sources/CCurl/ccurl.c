// Loads libcurl on first use and forwards each function the Swift code calls (see
// include/ccurl.h for why it is not linked). Every function here has libcurl's own name and
// prototype, so the compiler checks these against curl.h.
#include "ccurl.h"

#include <clibraryloader.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void *library;
static char loadError[512];
static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;

static void load(void) {
    // The soname Debian's libcurl4 (OpenSSL) installs, its GnuTLS sibling, then macOS's.
    static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.4.dylib", "/usr/lib/libcurl.4.dylib"};
    library = clibrary_open(names, sizeof names / sizeof names[0], loadError, sizeof loadError);
    if (library == NULL) return;
    CURLcode (*globalInit)(long) = (CURLcode (*)(long))dlsym(library, "curl_global_init");
    curl_version_info_data *(*versionInfo)(CURLversion) =
        (curl_version_info_data *(*)(CURLversion))dlsym(library, "curl_version_info");
    if (globalInit == NULL || versionInfo == NULL || dlsym(library, "curl_easy_setopt") == NULL) {
        snprintf(loadError, sizeof loadError, "the libcurl found lacks curl_global_init or curl_easy_setopt");
        dlclose(library);
        library = NULL;
        return;
    }
    curl_version_info_data *version = versionInfo(CURLVERSION_NOW);
    if (version == NULL || version->version_num < 0x075500) {
        snprintf(loadError, sizeof loadError, "libcurl %s is too old (7.85 or newer is needed)",
                 version && version->version ? version->version : "?");
        dlclose(library);
        library = NULL;
        return;
    }
    if (globalInit(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(loadError, sizeof loadError, "libcurl could not be initialised");
        dlclose(library);
        library = NULL;
    }
}

int ccurl_available(void) {
    pthread_once(&loadOnce, load);
    return library != NULL;
}

const char *ccurl_load_error(void) {
    pthread_once(&loadOnce, load);
    return loadError;
}

/// The address of libcurl's `name`, or NULL (libcurl missing, or too old to have it).
static void *symbol(const char *name) {
    return ccurl_available() ? dlsym(library, name) : NULL;
}

// curl_easy_setopt and curl_easy_getinfo are variadic: each helper passes exactly one argument
// of the type the option documents.
typedef CURLcode (*setopt_function)(CURL *, CURLoption, ...);

static setopt_function setopt(void) {
    static setopt_function real;
    if (real == NULL) real = (setopt_function)symbol("curl_easy_setopt");
    return real;
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
    static CURLcode (*real)(CURL *, CURLINFO, ...);
    if (real == NULL) real = (CURLcode (*)(CURL *, CURLINFO, ...))symbol("curl_easy_getinfo");
    return real != NULL ? real(handle, info, value) : CURLE_FAILED_INIT;
}


// Hidden: libcurl's own calls between its functions must not come back through these.
#pragma GCC visibility push(hidden)

CURL *curl_easy_init(void) {
    static CURL *(*real)(void);
    if (real == NULL) real = (CURL *(*)(void))symbol("curl_easy_init");
    return real != NULL ? real() : NULL;
}

void curl_easy_cleanup(CURL *curl) {
    static void (*real)(CURL *curl);
    if (real == NULL) real = (void (*)(CURL *curl))symbol("curl_easy_cleanup");
    if (real != NULL) real(curl);
}

void curl_easy_reset(CURL *curl) {
    static void (*real)(CURL *curl);
    if (real == NULL) real = (void (*)(CURL *curl))symbol("curl_easy_reset");
    if (real != NULL) real(curl);
}

CURLcode curl_easy_perform(CURL *curl) {
    static CURLcode (*real)(CURL *curl);
    if (real == NULL) real = (CURLcode (*)(CURL *curl))symbol("curl_easy_perform");
    return real != NULL ? real(curl) : CURLE_FAILED_INIT;
}

const char *curl_easy_strerror(CURLcode code) {
    static const char *(*real)(CURLcode code);
    if (real == NULL) real = (const char *(*)(CURLcode code))symbol("curl_easy_strerror");
    return real != NULL ? real(code) : "libcurl is not loaded";
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *data) {
    static struct curl_slist *(*real)(struct curl_slist *list, const char *data);
    if (real == NULL) real = (struct curl_slist *(*)(struct curl_slist *list, const char *data))symbol("curl_slist_append");
    return real != NULL ? real(list, data) : NULL;
}

void curl_slist_free_all(struct curl_slist *list) {
    static void (*real)(struct curl_slist *list);
    if (real == NULL) real = (void (*)(struct curl_slist *list))symbol("curl_slist_free_all");
    if (real != NULL) real(list);
}

#pragma GCC visibility pop
