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

/// Why zlib cannot be used, one line naming it ("zlib is not installed (tried …)", or what
/// the file found lacks), or "" when it was loaded.
const char *czlib_load_error(void);

/// CLIBRARY_LOADED, CLIBRARY_MISSING or CLIBRARY_UNUSABLE (clibraryloader.h), loading on the first call.
int czlib_load_state(void);

/// The zlib loaded, "zlib 1.2.13 (/usr/lib/…/libz.so.1.2.13)", or why none can be.
const char *czlib_description(void);

#endif
