// libplist, reached from Swift only through this module.
// Debian 12 ships libplist 2.2.0, whose API returns void and frees with plist_to_bin_free;
// later releases return plist_err_t and add plist_mem_free. Keep version differences here.
#include <plist/plist.h>
