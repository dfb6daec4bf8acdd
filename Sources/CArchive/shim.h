// libarchive, reached from Swift only through this module (Sources/XDocSource/Archive).
// Debian 12 ships libarchive 3.6.2; only its read side is used (xds never extracts or writes).
#include <archive.h>
#include <archive_entry.h>
#include <locale.h>

// archive_set_error is variadic, which Swift cannot call: a fixed message through "%s".
static inline void carchive_set_error(struct archive *archive, int code, const char *message) {
    archive_set_error(archive, code, "%s", message);
}
