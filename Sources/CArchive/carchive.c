// Loads libarchive on first use and forwards each function the Swift code calls (see
// include/carchive.h for why it is not linked). Every function here has libarchive's own name
// and prototype, so the compiler checks these against archive.h.
#include "carchive.h"

#include <clibraryloader.h>

// The encryption queries arrived in libarchive 3.2 and the UTF-8 name is only a fallback: a
// libarchive without them still reads archives (their forwarders answer "unknown").
#define CARCHIVE_FUNCTIONS(X)                                                                        \
    CLIBRARY_SAME(X, archive_set_error) CLIBRARY_SAME(X, archive_read_new)                           \
    CLIBRARY_SAME(X, archive_read_free) CLIBRARY_SAME(X, archive_read_support_format_tar)            \
    CLIBRARY_SAME(X, archive_read_support_format_gnutar)                                             \
    CLIBRARY_SAME(X, archive_read_support_format_empty)                                              \
    CLIBRARY_SAME(X, archive_read_set_format_option) CLIBRARY_SAME(X, archive_error_string)          \
    CLIBRARY_SAME(X, archive_read_open2) CLIBRARY_SAME(X, archive_read_next_header)                  \
    CLIBRARY_SAME(X, archive_read_data) CLIBRARY_SAME(X, archive_entry_size)                         \
    CLIBRARY_SAME(X, archive_entry_size_is_set) CLIBRARY_SAME(X, archive_entry_xattr_reset)          \
    CLIBRARY_SAME(X, archive_entry_xattr_next) CLIBRARY_SAME(X, archive_entry_pathname)              \
    CLIBRARY_SAME(X, archive_entry_mac_metadata) CLIBRARY_SAME(X, archive_entry_filetype)            \
    CLIBRARY_SAME(X, archive_read_append_filter) CLIBRARY_SAME(X, archive_filter_bytes)              \
    CLIBRARY_SAME(X, archive_read_data_block) CLIBRARY_SAME(X, archive_read_support_filter_compress)  \
    CLIBRARY_SAME(X, archive_filter_count) CLIBRARY_SAME(X, archive_format)                          \
    CLIBRARY_SAME(X, archive_read_header_position)                                                   \
    CLIBRARY_SAME(X, archive_read_support_format_raw) CLIBRARY_SAME(X, archive_read_open_fd)         \
    CLIBRARY_SAME(X, archive_write_new) CLIBRARY_SAME(X, archive_write_free)                         \
    CLIBRARY_SAME(X, archive_write_set_format_raw) CLIBRARY_SAME(X, archive_write_add_filter)        \
    CLIBRARY_SAME(X, archive_write_set_filter_option)                                                \
    CLIBRARY_SAME(X, archive_write_set_bytes_per_block)                                              \
    CLIBRARY_SAME(X, archive_write_set_bytes_in_last_block) CLIBRARY_SAME(X, archive_write_open_fd)  \
    CLIBRARY_SAME(X, archive_write_header) CLIBRARY_SAME(X, archive_write_data)                      \
    CLIBRARY_SAME(X, archive_write_close) CLIBRARY_SAME(X, archive_entry_new)                        \
    CLIBRARY_SAME(X, archive_entry_free) CLIBRARY_SAME(X, archive_entry_set_filetype)                \
    CLIBRARY_SAME_OPTIONAL(X, archive_entry_is_data_encrypted)                                       \
    CLIBRARY_SAME_OPTIONAL(X, archive_entry_is_encrypted)                                            \
    CLIBRARY_SAME_OPTIONAL(X, archive_entry_pathname_utf8)

static struct {
    CARCHIVE_FUNCTIONS(CLIBRARY_FIELD)
} libarchive;

// The soname Debian's libarchive13 installs, then the development link; macOS: Homebrew's
// (keg-only: under opt/libarchive), then the dyld search path.
CLIBRARY_DEFINE(carchive, "libarchive", libarchive, CARCHIVE_FUNCTIONS, "archive_version_string", NULL, NULL,
#if defined(__APPLE__)
                "/opt/homebrew/opt/libarchive/lib/libarchive.13.dylib",
                "/usr/local/opt/libarchive/lib/libarchive.13.dylib", "libarchive.13.dylib"
#else
                "libarchive.so.13", "libarchive.so"
#endif
)

void carchive_set_error(struct archive *a, int code, const char *message) {
    if (carchive_available()) libarchive.archive_set_error(a, code, "%s", message);
}

// Hidden: libarchive's own calls between its functions must not come back through these.
#pragma GCC visibility push(hidden)

/// A forwarder returning `otherwise` when libarchive is missing (or lacks an optional function).
#define CARCHIVE_FORWARD(type, name, parameters, arguments, otherwise) \
    type name parameters { return carchive_available() && libarchive.name ? libarchive.name arguments : otherwise; }

CARCHIVE_FORWARD(struct archive *, archive_read_new, (void), (), NULL)
CARCHIVE_FORWARD(int, archive_read_free, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_read_support_format_tar, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_read_support_format_gnutar, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_read_support_format_empty, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_read_set_format_option, (struct archive *a, const char *m, const char *o, const char *v),
                 (a, m, o, v), ARCHIVE_FATAL)
CARCHIVE_FORWARD(const char *, archive_error_string, (struct archive *a), (a), NULL)
CARCHIVE_FORWARD(int, archive_read_open2,
                 (struct archive *a, void *d, archive_open_callback *o, archive_read_callback *r,
                  archive_skip_callback *s, archive_close_callback *c),
                 (a, d, o, r, s, c), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_read_next_header, (struct archive *a, struct archive_entry **e), (a, e), ARCHIVE_FATAL)
CARCHIVE_FORWARD(la_ssize_t, archive_read_data, (struct archive *a, void *b, size_t n), (a, b, n), -1)
CARCHIVE_FORWARD(la_int64_t, archive_entry_size, (struct archive_entry *e), (e), -1)
CARCHIVE_FORWARD(int, archive_entry_size_is_set, (struct archive_entry *e), (e), 0)
CARCHIVE_FORWARD(int, archive_entry_is_data_encrypted, (struct archive_entry *e), (e), -1)
CARCHIVE_FORWARD(int, archive_entry_is_encrypted, (struct archive_entry *e), (e), -1)
CARCHIVE_FORWARD(int, archive_entry_xattr_reset, (struct archive_entry *e), (e), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_entry_xattr_next, (struct archive_entry *e, const char **n, const void **v, size_t *s),
                 (e, n, v, s), ARCHIVE_FATAL)
CARCHIVE_FORWARD(const char *, archive_entry_pathname, (struct archive_entry *e), (e), NULL)
CARCHIVE_FORWARD(const char *, archive_entry_pathname_utf8, (struct archive_entry *e), (e), NULL)
CARCHIVE_FORWARD(const void *, archive_entry_mac_metadata, (struct archive_entry *e, size_t *s), (e, s), NULL)
CARCHIVE_FORWARD(__LA_MODE_T, archive_entry_filetype, (struct archive_entry *e), (e), 0)
CARCHIVE_FORWARD(int, archive_read_append_filter, (struct archive *a, int code), (a, code), ARCHIVE_FATAL)
CARCHIVE_FORWARD(la_int64_t, archive_filter_bytes, (struct archive *a, int n), (a, n), -1)
CARCHIVE_FORWARD(int, archive_read_support_filter_compress, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_filter_count, (struct archive *a), (a), -1)
CARCHIVE_FORWARD(int, archive_format, (struct archive *a), (a), 0)
// Where the current entry's first header (a pax header's, when it has one) starts in the
// decompressed stream: the raw pax records are read again from there (ArchiveReader+Pax.swift).
CARCHIVE_FORWARD(la_int64_t, archive_read_header_position, (struct archive *a), (a), -1)
CARCHIVE_FORWARD(int, archive_read_data_block, (struct archive *a, const void **b, size_t *s, la_int64_t *o),
                 (a, b, s, o), ARCHIVE_FATAL)

// The raw stream of a compressed tar, in and out (clean copies: one filter each way).
CARCHIVE_FORWARD(int, archive_read_support_format_raw, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_read_open_fd, (struct archive *a, int fd, size_t block), (a, fd, block), ARCHIVE_FATAL)
CARCHIVE_FORWARD(struct archive *, archive_write_new, (void), (), NULL)
CARCHIVE_FORWARD(int, archive_write_free, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_write_set_format_raw, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_write_add_filter, (struct archive *a, int code), (a, code), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_write_set_filter_option, (struct archive *a, const char *m, const char *o, const char *v),
                 (a, m, o, v), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_write_set_bytes_per_block, (struct archive *a, int n), (a, n), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_write_set_bytes_in_last_block, (struct archive *a, int n), (a, n), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_write_open_fd, (struct archive *a, int fd), (a, fd), ARCHIVE_FATAL)
CARCHIVE_FORWARD(int, archive_write_header, (struct archive *a, struct archive_entry *e), (a, e), ARCHIVE_FATAL)
CARCHIVE_FORWARD(la_ssize_t, archive_write_data, (struct archive *a, const void *b, size_t n), (a, b, n), -1)
CARCHIVE_FORWARD(int, archive_write_close, (struct archive *a), (a), ARCHIVE_FATAL)
CARCHIVE_FORWARD(struct archive_entry *, archive_entry_new, (void), (), NULL)
void archive_entry_free(struct archive_entry *e) {
    if (carchive_available()) libarchive.archive_entry_free(e);
}
void archive_entry_set_filetype(struct archive_entry *e, unsigned int type) {
    if (carchive_available()) libarchive.archive_entry_set_filetype(e, type);
}

#pragma GCC visibility pop
