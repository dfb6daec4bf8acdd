// Opens zlib on first use and forwards each function the Swift code calls (include/czlib.h).
#include "czlib.h"

#include <clibraryloader.h>

#define CZLIB_FUNCTIONS(X)                                                                         \
    CLIBRARY_SAME(X, inflateInit2_) CLIBRARY_SAME(X, inflate) CLIBRARY_SAME(X, inflateEnd)          \
    CLIBRARY_SAME(X, deflateInit2_) CLIBRARY_SAME(X, deflate) CLIBRARY_SAME(X, deflateEnd)          \
    CLIBRARY_SAME(X, deflateBound) CLIBRARY_SAME(X, crc32)

static struct {
    CZLIB_FUNCTIONS(CLIBRARY_FIELD)
} zlib;
// Debian's soname, the development link, then macOS's own.
CLIBRARY_DEFINE(czlib, "zlib", zlib, CZLIB_FUNCTIONS, "zlibVersion", NULL, NULL,
#if defined(__APPLE__)
                "libz.1.dylib", "/usr/lib/libz.1.dylib"
#else
                "libz.so.1", "libz.so"
#endif
)

// Hidden: the executable's copies must not stand in for zlib's own functions in the libraries
// that link zlib (libcurl, libarchive).
#pragma GCC visibility push(hidden)

int inflateInit2_(z_streamp strm, int windowBits, const char *version, int stream_size) {
    return czlib_available() ? zlib.inflateInit2_(strm, windowBits, version, stream_size) : Z_MEM_ERROR;
}

int inflate(z_streamp strm, int flush) {
    return czlib_available() ? zlib.inflate(strm, flush) : Z_STREAM_ERROR;
}

int inflateEnd(z_streamp strm) {
    return czlib_available() ? zlib.inflateEnd(strm) : Z_STREAM_ERROR;
}

int deflateInit2_(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy,
                  const char *version, int stream_size) {
    return czlib_available()
        ? zlib.deflateInit2_(strm, level, method, windowBits, memLevel, strategy, version, stream_size)
        : Z_MEM_ERROR;
}

int deflate(z_streamp strm, int flush) {
    return czlib_available() ? zlib.deflate(strm, flush) : Z_STREAM_ERROR;
}

int deflateEnd(z_streamp strm) {
    return czlib_available() ? zlib.deflateEnd(strm) : Z_STREAM_ERROR;
}

uLong deflateBound(z_streamp strm, uLong sourceLen) {
    return czlib_available() ? zlib.deflateBound(strm, sourceLen) : 0;
}

uLong crc32(uLong crc, const Bytef *buf, uInt len) {
    return czlib_available() ? zlib.crc32(crc, buf, len) : 0;
}

#pragma GCC visibility pop
