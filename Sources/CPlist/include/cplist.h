// libplist, reached from Swift only through this module (XDocSource's PropertyList.swift).
// Debian 12 ships libplist 2.2.0, whose API returns void and frees with plist_to_bin_free;
// later releases return plist_err_t and add plist_mem_free. Keep version differences here.
//
// xds does not link libplist: cplist.c opens libplist-2.0.so.3 with dlopen the first time a
// function is called (see Sources/CLibraryLoader for why); `xds show` decodes attributes with
// its own validator and never needs it. The forwarders keep libplist's own names and
// prototypes, checked by the compiler against plist.h.
#ifndef CPLIST_H
#define CPLIST_H

#include <plist/plist.h>
#include <stdlib.h>

/// 1 when libplist could be loaded (loading it on the first call), else 0. Until it is, the
/// constructors and parsers below produce NULL and the getters leave their outputs empty.
int cplist_available(void);

/// Why libplist could not be loaded (dlerror's text), or "" when it was.
const char *cplist_load_error(void);

// Frees what libplist 2.2 getters hand out (keys, strings, data, dict iterators): they come
// from malloc, and 2.2 has no plist_mem_free. Later releases' plist_mem_free is also free().
static inline void cplist_free_memory(void *memory) {
    free(memory);
}

#endif
