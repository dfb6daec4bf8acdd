// libplist, reached from Swift only through this module.
// Debian 12 ships libplist 2.2.0, whose API returns void and frees with plist_to_bin_free;
// later releases return plist_err_t and add plist_mem_free. Keep version differences here.
#include <plist/plist.h>
#include <stdlib.h>

// Frees what libplist 2.2 getters hand out (keys, strings, data, dict iterators): they come
// from malloc, and 2.2 has no plist_mem_free. Later releases' plist_mem_free is also free().
static inline void cplist_free_memory(void *memory) {
    free(memory);
}
