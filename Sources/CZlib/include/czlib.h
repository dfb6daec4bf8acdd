// zlib, reached from Swift only through this module (IconMask's PNG/Compression.swift,
// XDocSourceArchive's ZipReader.swift).
//
// xds does not link zlib: czlib.c opens libz.so.1 with dlopen the first time a function below
// is called (see Sources/CLibraryLoader for why). The functions keep zlib's own names and
// prototypes, checked by the compiler against zlib.h, so the Swift code reads like any zlib
// client; they are hidden from other libraries (libcurl and libarchive bring their own zlib).
#ifndef CZLIB_H
#define CZLIB_H

#include <zlib.h>

/// 1 when zlib could be loaded (loading it on the first call), else 0. Until it is, every
/// function below fails as zlib does on bad input (Z_STREAM_ERROR, Z_MEM_ERROR, 0).
int czlib_available(void);

/// Why zlib could not be loaded (dlerror's text), or "" when it was.
const char *czlib_load_error(void);

#endif
