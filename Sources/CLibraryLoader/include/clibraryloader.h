// Loading a shared library on first use. xds links none of the C libraries it calls through
// (libplist, zlib, libdeflate, libarchive, libcurl): each C module (CPlist, CZlib, CDeflate,
// CArchive, CCurl) opens its library with dlopen the first time it is needed and forwards calls
// to it. Linked, each library costs every run of `xds` its loading time — mapping, relocating,
// resolving symbols — whether the command needs it or not (Benchmarks/RESULTS.md, start-up).
#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <stddef.h>

/// Opens the first of `names` (sonames, then development links and macOS names) that dlopen
/// finds, RTLD_NOW | RTLD_LOCAL. Returns NULL when none loads, with the first name's dlerror
/// text (the most telling one) written into `error`.
void *clibrary_open(const char *const names[], size_t count, char *error, size_t errorSize);

/// Looks up `name` in `library` into `*address`. 0 when found; else -1, with "LIBRARY lacks
/// NAME" in `error` (a library older than xds needs).
int clibrary_symbol(void *library, const char *libraryName, const char *name, void **address,
                    char *error, size_t errorSize);

#endif
