// libdeflate, reached from Swift only through this module (IconMask's PNG/Compression.swift;
// the benchmark xds-bench).
//
// xds does not link libdeflate: cdeflate.c opens libdeflate.so.0 with dlopen the first time a
// function below is called (see Sources/CLibraryLoader for why). The functions keep
// libdeflate's own names and prototypes, checked by the compiler against libdeflate.h.
#ifndef CDEFLATE_H
#define CDEFLATE_H

#include <libdeflate.h>

/// 1 when libdeflate could be loaded (loading it on the first call), else 0. Until it is, the
/// allocators below return NULL, the checksum 0 and the decompressors LIBDEFLATE_BAD_DATA.
int cdeflate_available(void);

/// Why libdeflate cannot be used, one line naming it ("libdeflate is not installed (tried …)", or what
/// the file found lacks), or "" when it was loaded.
const char *cdeflate_load_error(void);

/// CLIBRARY_LOADED, CLIBRARY_MISSING or CLIBRARY_UNUSABLE (clibraryloader.h), loading on the first call.
int cdeflate_load_state(void);

/// The libdeflate loaded, "libdeflate (/usr/lib/…/libdeflate.so.0)" (it has no version call), or why none can be.
const char *cdeflate_description(void);

#endif
