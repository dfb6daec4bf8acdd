// libcurl, reached from Swift only through this module (Sources/XDocSourceHTTP/CurlTransport.swift).
// Debian 12 ships libcurl 7.88.1 (package libcurl4, OpenSSL); macOS has its own. 7.85 or newer
// is needed (CURLOPT_PROTOCOLS_STR).
//
// xds does not link libcurl: ccurl.c loads it with dlopen the first time a request is made, as
// CArchive loads libarchive. Linked, libcurl and what it pulls in (OpenSSL, nghttp2, libssh2,
// GSSAPI, LDAP…) would cost every `xds` run its loading time, request or not. The functions
// below keep libcurl's own names and prototypes (from its headers), so the Swift code reads like
// any libcurl client; curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call, so typed helpers stand in for them.
#ifndef CCURL_H
#define CCURL_H

#include <clibraryloader.h>
#include <curl/curl.h>
#include <stddef.h>

/// 1 when libcurl could be loaded (loading and globally initialising it on the first call), else 0.
int ccurl_available(void);

/// Why libcurl cannot be used, one line naming it ("libcurl is not installed (tried …)", or what
/// the file found lacks), or "" when it was loaded.
const char *ccurl_load_error(void);

/// CLIBRARY_LOADED, CLIBRARY_MISSING or CLIBRARY_UNUSABLE (clibraryloader.h), loading on the first call.
int ccurl_load_state(void);

/// The libcurl loaded, "libcurl 7.88.1 (/usr/lib/…/libcurl.so.4.8.0)", or why none can be.
const char *ccurl_description(void);

/// curl_easy_setopt for an option taking a long.
CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
/// curl_easy_setopt for an option taking a pointer (text, an slist, a callback's data).
CURLcode ccurl_setopt_ptr(CURL *handle, CURLoption option, const void *value);
/// curl_easy_setopt for an option taking a curl_off_t (the *_LARGE options).
CURLcode ccurl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION (same prototype).
CURLcode ccurl_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback function);
/// CURLOPT_XFERINFOFUNCTION.
CURLcode ccurl_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback function);

/// curl_easy_getinfo for a long (CURLINFO_RESPONSE_CODE, CURLINFO_SSL_VERIFYRESULT, CURLINFO_OS_ERRNO…).
CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
