// Opens zlib on first use and forwards each function the Swift code calls (include/czlib.h).
#include "czlib.h"

#include <clibraryloader.h>
#include <pthread.h>

#define CZLIB_FUNCTIONS(X) \
    X(inflateInit2_) X(inflate) X(inflateEnd) X(deflateInit2_) X(deflate) X(deflateEnd) \
    X(deflateBound) X(crc32)

static struct {
#define CZLIB_FIELD(name) __typeof__(name) *name;
    CZLIB_FUNCTIONS(CZLIB_FIELD)
} zlib;
static char loadError[320];
static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;

static void load(void) {
    // Debian's soname, the development link, then macOS's own.
    static const char *const names[] = {"libz.so.1", "libz.so", "/usr/lib/libz.1.dylib"};
    void *library = clibrary_open(names, sizeof names / sizeof names[0], loadError, sizeof loadError);
    if (library == NULL) return;
#define CZLIB_LOOKUP(name) \
    if (clibrary_symbol(library, "zlib", #name, (void **)&zlib.name, loadError, sizeof loadError) != 0) { \
        zlib.inflate = NULL; return; }
    CZLIB_FUNCTIONS(CZLIB_LOOKUP)
}

int czlib_available(void) {
    pthread_once(&loadOnce, load);
    return zlib.inflate != NULL;
}

const char *czlib_load_error(void) {
    pthread_once(&loadOnce, load);
    return loadError;
}

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
