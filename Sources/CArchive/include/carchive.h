// libarchive, reached from Swift only through this module (Sources/XDocSource/Archive).
// Debian 12 ships libarchive 3.6.2. xds never extracts: it reads, and for clean copies of
// compressed tars (`strip ARCHIVE -o CLEAN`) it decompresses and recompresses the raw stream.
//
// xds does not link libarchive: carchive.c loads it with dlopen the first time an archive is
// read. Linked, it and the libraries it pulls in (libxml2, ICU, nettle, the compressors) cost
// every `xds` run about 3 ms of start-up, archive or not. The functions below keep libarchive's
// own names and prototypes (from its headers), so the Swift code reads like any libarchive client.
#ifndef CARCHIVE_H
#define CARCHIVE_H

#include <archive.h>
#include <archive_entry.h>
#include <locale.h>

/// 1 when libarchive could be loaded (loading it on the first call), else 0.
int carchive_available(void);

/// Why libarchive cannot be used, one line naming it ("libarchive is not installed (tried …)", or what
/// the file found lacks), or "" when it was loaded.
const char *carchive_load_error(void);

/// CLIBRARY_LOADED, CLIBRARY_MISSING or CLIBRARY_UNUSABLE (clibraryloader.h), loading on the first call.
int carchive_load_state(void);

/// The libarchive loaded, "libarchive 3.6.2 (/usr/lib/…/libarchive.so.13.6.2)", or why none can be.
const char *carchive_description(void);

/// archive_set_error is variadic, which Swift cannot call: a fixed message through "%s".
void carchive_set_error(struct archive *archive, int code, const char *message);

#endif
