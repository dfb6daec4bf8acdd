// libplist, reached from Swift only through this module (XDocSource's PropertyList.swift).
//
// xds does not link libplist: cplist.c opens it with dlopen the first time a function is called
// (see Sources/CLibraryLoader for why); `xds show` decodes attributes with its own validator and
// never needs it. It works with libplist 2.2 through 2.7, whichever is installed:
// * 2.2 (Debian 12) installs libplist-2.0.so.3; its functions return void, its buffers are freed
//   with plist_to_bin_free, and its plist_type counts PLIST_NONE as 10.
// * 2.3 and later install libplist-2.0.so.4 (macOS: libplist-2.0.4.dylib); plist_to_bin and the
//   parsers return plist_err_t, plist_mem_free replaces plist_to_bin_free, PLIST_NONE is -1 and
//   PLIST_NULL (10) is new; 2.4 adds libplist_version; 2.5.0 alone types data as uint8_t.
// So the header this is compiled against (2.2 on Debian 12, 2.7 from Homebrew) says nothing
// about the library loaded: the functions whose prototype or meaning changed are reached through
// the cplist_ functions below, which take the loaded library's ABI into account; the rest keep
// libplist's own names and prototypes, checked by the compiler against plist.h.
#ifndef CPLIST_H
#define CPLIST_H

#include <plist/plist.h>
#include <stdint.h>

/// 1 when libplist could be loaded (loading it on the first call), else 0. Until it is, the
/// constructors and parsers below produce NULL and the getters leave their outputs empty.
int cplist_available(void);

/// Why libplist cannot be used, one line naming it ("libplist is not installed (tried …)",
/// "libplist 2.2 or older (/usr/lib/…) lacks plist_new_uid"), or "" when it was loaded.
const char *cplist_load_error(void);

/// CLIBRARY_LOADED, CLIBRARY_MISSING or CLIBRARY_UNUSABLE (clibraryloader.h), loading on the first call.
int cplist_load_state(void);

/// The libplist loaded, "libplist 2.7.0 (/usr/lib/…/libplist-2.0.so.4.11.0)", or why none can
/// be; libplist 2.2 and 2.3 have no version call, so those are named by what they export
/// ("2.2 or older", "2.3") and their file.
const char *cplist_description(void);

/// A node's type, the same whichever libplist is loaded (2.2 and 2.3+ number theirs apart).
typedef enum {
    CPLIST_NONE,     ///< Not a node, or libplist is missing.
    CPLIST_BOOLEAN,
    CPLIST_INTEGER,  ///< PLIST_UINT (2.2), PLIST_INT (2.3+).
    CPLIST_REAL,
    CPLIST_STRING,
    CPLIST_ARRAY,
    CPLIST_DICT,
    CPLIST_DATE,
    CPLIST_DATA,
    CPLIST_KEY,
    CPLIST_UID,
    CPLIST_NULL,     ///< 2.3+ only.
    CPLIST_UNKNOWN,  ///< A type newer than xds knows.
} cplist_type;

/// plist_get_node_type, translated from the loaded libplist's numbering.
cplist_type cplist_node_type(plist_t node);

/// plist_to_bin: 1 with a buffer to free with cplist_free_encoded, else 0 with `*bytes` NULL.
int cplist_to_bin(plist_t node, char **bytes, uint32_t *length);

/// Frees what cplist_to_bin gave: plist_to_bin_free (2.2) or plist_mem_free (2.3+).
void cplist_free_encoded(char *bytes);

/// plist_from_bin and plist_from_xml: the root node (free with plist_free), or NULL when the
/// bytes do not parse (2.2 says so by a NULL output, 2.3+ also by its plist_err_t).
plist_t cplist_from_bin(const char *bytes, uint32_t length);
plist_t cplist_from_xml(const char *bytes, uint32_t length);

/// An 8-byte integer node, written as 2.2 writes plist_new_uint's: 2.3+'s plist_new_uint makes
/// every value above INT_MAX a 16-byte integer (read back as unsigned), so 2.3+ gets plist_new_int.
plist_t cplist_new_int(int64_t value);

/// plist_new_data and plist_get_data_val (libplist 2.5.0's header types data as uint8_t, the
/// others as char; the ABI is the same).
plist_t cplist_new_data(const char *bytes, uint64_t length);
void cplist_get_data_val(plist_t node, char **bytes, uint64_t *length);

/// Frees what the getters hand out (keys, strings, data, iterators): plist_mem_free where the
/// library has it (2.3+), else free() (2.2, whose memory comes from malloc).
void cplist_free_memory(void *memory);

#endif
