// Opens libdeflate on first use and forwards each function the Swift code calls
// (include/cdeflate.h).
#include "cdeflate.h"

#include <clibraryloader.h>

#define CDEFLATE_FUNCTIONS(X)                                                                      \
    CLIBRARY_SAME(X, libdeflate_alloc_compressor) CLIBRARY_SAME(X, libdeflate_free_compressor)      \
    CLIBRARY_SAME(X, libdeflate_zlib_compress) CLIBRARY_SAME(X, libdeflate_zlib_compress_bound)     \
    CLIBRARY_SAME(X, libdeflate_alloc_decompressor) CLIBRARY_SAME(X, libdeflate_free_decompressor)  \
    CLIBRARY_SAME(X, libdeflate_deflate_decompress) CLIBRARY_SAME(X, libdeflate_zlib_decompress)    \
    CLIBRARY_SAME(X, libdeflate_crc32)

static struct {
    CDEFLATE_FUNCTIONS(CLIBRARY_FIELD)
} deflate;
// Debian's soname and the development link; macOS: Homebrew's (Apple silicon, Intel). libdeflate
// has no version call (only a macro in its header), so messages name the file loaded.
CLIBRARY_DEFINE(cdeflate, "libdeflate", deflate, CDEFLATE_FUNCTIONS, NULL, NULL, NULL,
#if defined(__APPLE__)
                "libdeflate.0.dylib", "/opt/homebrew/lib/libdeflate.dylib", "/usr/local/lib/libdeflate.dylib"
#else
                "libdeflate.so.0", "libdeflate.so"
#endif
)

// Hidden, as in czlib.c: only xds's own code calls these.
#pragma GCC visibility push(hidden)

struct libdeflate_compressor *libdeflate_alloc_compressor(int compression_level) {
    return cdeflate_available() ? deflate.libdeflate_alloc_compressor(compression_level) : NULL;
}

void libdeflate_free_compressor(struct libdeflate_compressor *compressor) {
    if (cdeflate_available()) deflate.libdeflate_free_compressor(compressor);
}

size_t libdeflate_zlib_compress(struct libdeflate_compressor *compressor, const void *in, size_t in_nbytes,
                                void *out, size_t out_nbytes_avail) {
    return cdeflate_available() ? deflate.libdeflate_zlib_compress(compressor, in, in_nbytes, out, out_nbytes_avail) : 0;
}

size_t libdeflate_zlib_compress_bound(struct libdeflate_compressor *compressor, size_t in_nbytes) {
    return cdeflate_available() ? deflate.libdeflate_zlib_compress_bound(compressor, in_nbytes) : 0;
}

struct libdeflate_decompressor *libdeflate_alloc_decompressor(void) {
    return cdeflate_available() ? deflate.libdeflate_alloc_decompressor() : NULL;
}

void libdeflate_free_decompressor(struct libdeflate_decompressor *decompressor) {
    if (cdeflate_available()) deflate.libdeflate_free_decompressor(decompressor);
}

enum libdeflate_result libdeflate_deflate_decompress(struct libdeflate_decompressor *decompressor,
                                                     const void *in, size_t in_nbytes, void *out,
                                                     size_t out_nbytes_avail, size_t *actual_out_nbytes_ret) {
    return cdeflate_available()
        ? deflate.libdeflate_deflate_decompress(decompressor, in, in_nbytes, out, out_nbytes_avail, actual_out_nbytes_ret)
        : LIBDEFLATE_BAD_DATA;
}

enum libdeflate_result libdeflate_zlib_decompress(struct libdeflate_decompressor *decompressor,
                                                  const void *in, size_t in_nbytes, void *out,
                                                  size_t out_nbytes_avail, size_t *actual_out_nbytes_ret) {
    return cdeflate_available()
        ? deflate.libdeflate_zlib_decompress(decompressor, in, in_nbytes, out, out_nbytes_avail, actual_out_nbytes_ret)
        : LIBDEFLATE_BAD_DATA;
}

uint32_t libdeflate_crc32(uint32_t crc, const void *buffer, size_t len) {
    return cdeflate_available() ? deflate.libdeflate_crc32(crc, buffer, len) : 0;
}

#pragma GCC visibility pop
