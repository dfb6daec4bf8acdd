// Loads libarchive on first use and forwards each function the Swift code calls (see
// include/carchive.h for why it is not linked). Every function here has libarchive's own name
// and prototype, so the compiler checks these against archive.h.
#include "carchive.h"

#include <clibraryloader.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *library;
static char loadError[256];
static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;

static void load(void) {
    // The soname Debian's libarchive13 installs, then the development link.
    static const char *const names[] = {"libarchive.so.13", "libarchive.so", "libarchive.13.dylib", "libarchive.dylib"};
    library = clibrary_open(names, sizeof names / sizeof names[0], loadError, sizeof loadError);
}

int carchive_available(void) {
    pthread_once(&loadOnce, load);
    return library != NULL;
}

const char *carchive_load_error(void) {
    pthread_once(&loadOnce, load);
    return loadError;
}

/// The address of libarchive's `name`, or NULL (libarchive missing, or too old to have it).
static void *symbol(const char *name) {
    return carchive_available() ? dlsym(library, name) : NULL;
}

// Hidden: libarchive's own calls between its functions must not come back through these.
#pragma GCC visibility push(hidden)

void carchive_set_error(struct archive *archive, int code, const char *message) {
    static void (*real)(struct archive *, int, const char *, ...);
    if (real == NULL) real = (void (*)(struct archive *, int, const char *, ...))symbol("archive_set_error");
    if (real != NULL) real(archive, code, "%s", message);
}

struct archive * archive_read_new(void) {
    static struct archive * (*real)(void);
    if (real == NULL) real = (struct archive * (*)(void))symbol("archive_read_new");
    return real != NULL ? real() : NULL;
}

int archive_read_free(struct archive *a) {
    static int (*real)(struct archive *a);
    if (real == NULL) real = (int (*)(struct archive *a))symbol("archive_read_free");
    return real != NULL ? real(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_tar(struct archive *a) {
    static int (*real)(struct archive *a);
    if (real == NULL) real = (int (*)(struct archive *a))symbol("archive_read_support_format_tar");
    return real != NULL ? real(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_gnutar(struct archive *a) {
    static int (*real)(struct archive *a);
    if (real == NULL) real = (int (*)(struct archive *a))symbol("archive_read_support_format_gnutar");
    return real != NULL ? real(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_empty(struct archive *a) {
    static int (*real)(struct archive *a);
    if (real == NULL) real = (int (*)(struct archive *a))symbol("archive_read_support_format_empty");
    return real != NULL ? real(a) : ARCHIVE_FATAL;
}

int archive_read_set_format_option(struct archive *a, const char *m, const char *o, const char *v) {
    static int (*real)(struct archive *a, const char *m, const char *o, const char *v);
    if (real == NULL) real = (int (*)(struct archive *a, const char *m, const char *o, const char *v))symbol("archive_read_set_format_option");
    return real != NULL ? real(a, m, o, v) : ARCHIVE_FATAL;
}

const char * archive_error_string(struct archive *a) {
    static const char * (*real)(struct archive *a);
    if (real == NULL) real = (const char * (*)(struct archive *a))symbol("archive_error_string");
    return real != NULL ? real(a) : NULL;
}

int archive_read_open2(struct archive *a, void *d, archive_open_callback *o, archive_read_callback *r, archive_skip_callback *s, archive_close_callback *c) {
    static int (*real)(struct archive *a, void *d, archive_open_callback *o, archive_read_callback *r, archive_skip_callback *s, archive_close_callback *c);
    if (real == NULL) real = (int (*)(struct archive *a, void *d, archive_open_callback *o, archive_read_callback *r, archive_skip_callback *s, archive_close_callback *c))symbol("archive_read_open2");
    return real != NULL ? real(a, d, o, r, s, c) : ARCHIVE_FATAL;
}

int archive_read_next_header(struct archive *a, struct archive_entry **e) {
    static int (*real)(struct archive *a, struct archive_entry **e);
    if (real == NULL) real = (int (*)(struct archive *a, struct archive_entry **e))symbol("archive_read_next_header");
    return real != NULL ? real(a, e) : ARCHIVE_FATAL;
}

la_ssize_t archive_read_data(struct archive *a, void *b, size_t n) {
    static la_ssize_t (*real)(struct archive *a, void *b, size_t n);
    if (real == NULL) real = (la_ssize_t (*)(struct archive *a, void *b, size_t n))symbol("archive_read_data");
    return real != NULL ? real(a, b, n) : -1;
}

la_int64_t archive_entry_size(struct archive_entry *e) {
    static la_int64_t (*real)(struct archive_entry *e);
    if (real == NULL) real = (la_int64_t (*)(struct archive_entry *e))symbol("archive_entry_size");
    return real != NULL ? real(e) : -1;
}

int archive_entry_size_is_set(struct archive_entry *e) {
    static int (*real)(struct archive_entry *e);
    if (real == NULL) real = (int (*)(struct archive_entry *e))symbol("archive_entry_size_is_set");
    return real != NULL ? real(e) : 0;
}

int archive_entry_is_data_encrypted(struct archive_entry *e) {
    static int (*real)(struct archive_entry *e);
    if (real == NULL) real = (int (*)(struct archive_entry *e))symbol("archive_entry_is_data_encrypted");
    return real != NULL ? real(e) : -1;
}

int archive_entry_is_encrypted(struct archive_entry *e) {
    static int (*real)(struct archive_entry *e);
    if (real == NULL) real = (int (*)(struct archive_entry *e))symbol("archive_entry_is_encrypted");
    return real != NULL ? real(e) : -1;
}

int archive_entry_xattr_reset(struct archive_entry *e) {
    static int (*real)(struct archive_entry *e);
    if (real == NULL) real = (int (*)(struct archive_entry *e))symbol("archive_entry_xattr_reset");
    return real != NULL ? real(e) : ARCHIVE_FATAL;
}

int archive_entry_xattr_next(struct archive_entry *e, const char **n, const void **v, size_t *s) {
    static int (*real)(struct archive_entry *e, const char **n, const void **v, size_t *s);
    if (real == NULL) real = (int (*)(struct archive_entry *e, const char **n, const void **v, size_t *s))symbol("archive_entry_xattr_next");
    return real != NULL ? real(e, n, v, s) : ARCHIVE_FATAL;
}

const char * archive_entry_pathname(struct archive_entry *e) {
    static const char * (*real)(struct archive_entry *e);
    if (real == NULL) real = (const char * (*)(struct archive_entry *e))symbol("archive_entry_pathname");
    return real != NULL ? real(e) : NULL;
}

const char * archive_entry_pathname_utf8(struct archive_entry *e) {
    static const char * (*real)(struct archive_entry *e);
    if (real == NULL) real = (const char * (*)(struct archive_entry *e))symbol("archive_entry_pathname_utf8");
    return real != NULL ? real(e) : NULL;
}

const void * archive_entry_mac_metadata(struct archive_entry *e, size_t *s) {
    static const void * (*real)(struct archive_entry *e, size_t *s);
    if (real == NULL) real = (const void * (*)(struct archive_entry *e, size_t *s))symbol("archive_entry_mac_metadata");
    return real != NULL ? real(e, s) : NULL;
}

__LA_MODE_T archive_entry_filetype(struct archive_entry *e) {
    static __LA_MODE_T (*real)(struct archive_entry *e);
    if (real == NULL) real = (__LA_MODE_T (*)(struct archive_entry *e))symbol("archive_entry_filetype");
    return real != NULL ? real(e) : 0;
}

int archive_read_append_filter(struct archive *a, int code) {
    static int (*real)(struct archive *a, int code);
    if (real == NULL) real = (int (*)(struct archive *a, int code))symbol("archive_read_append_filter");
    return real != NULL ? real(a, code) : ARCHIVE_FATAL;
}

la_int64_t archive_filter_bytes(struct archive *a, int n) {
    static la_int64_t (*real)(struct archive *a, int n);
    if (real == NULL) real = (la_int64_t (*)(struct archive *a, int n))symbol("archive_filter_bytes");
    return real != NULL ? real(a, n) : -1;
}

int archive_read_data_block(struct archive *a, const void **b, size_t *s, la_int64_t *o) {
    static int (*real)(struct archive *a, const void **b, size_t *s, la_int64_t *o);
    if (real == NULL) real = (int (*)(struct archive *a, const void **b, size_t *s, la_int64_t *o))symbol("archive_read_data_block");
    return real != NULL ? real(a, b, s, o) : ARCHIVE_FATAL;
}

#pragma GCC visibility pop
