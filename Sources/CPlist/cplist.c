// Opens libplist on first use and forwards each function the Swift code calls
// (include/cplist.h).
#include "cplist.h"

#include <clibraryloader.h>
#include <stdio.h>
#include <stdlib.h>

// The functions whose prototype is the same in 2.2 through 2.7 keep the header's type; the
// others get the type of the loaded ABI, chosen at run time (`abi23` below).
#define CPLIST_FUNCTIONS(X)                                                                          \
    CLIBRARY_SAME(X, plist_new_dict) CLIBRARY_SAME(X, plist_new_array)                               \
    CLIBRARY_SAME(X, plist_new_string) CLIBRARY_SAME(X, plist_new_bool)                              \
    CLIBRARY_SAME(X, plist_new_uint) CLIBRARY_SAME(X, plist_new_real) CLIBRARY_SAME(X, plist_new_uid) \
    CLIBRARY_SAME(X, plist_free) CLIBRARY_SAME(X, plist_array_get_size)                              \
    CLIBRARY_SAME(X, plist_array_append_item) CLIBRARY_SAME(X, plist_array_new_iter)                 \
    CLIBRARY_SAME(X, plist_array_next_item) CLIBRARY_SAME(X, plist_dict_new_iter)                    \
    CLIBRARY_SAME(X, plist_dict_next_item) CLIBRARY_SAME(X, plist_dict_set_item)                     \
    CLIBRARY_SAME(X, plist_get_key_val) CLIBRARY_SAME(X, plist_get_string_val)                       \
    CLIBRARY_SAME(X, plist_get_bool_val) CLIBRARY_SAME(X, plist_get_uint_val)                        \
    CLIBRARY_SAME(X, plist_get_real_val) CLIBRARY_SAME(X, plist_get_uid_val)                         \
    X(plist_new_data, plist_t (*)(const char *, uint64_t), 0, "plist_new_data")                      \
    X(plist_get_data_val, void (*)(plist_t, char **, uint64_t *), 0, "plist_get_data_val")           \
    X(plist_get_node_type, int (*)(plist_t), 0, "plist_get_node_type")                               \
    X(plist_to_bin, int (*)(plist_t, char **, uint32_t *), 0, "plist_to_bin")                        \
    X(plist_from_bin, int (*)(const char *, uint32_t, plist_t *), 0, "plist_from_bin")               \
    X(plist_from_xml, int (*)(const char *, uint32_t, plist_t *), 0, "plist_from_xml")               \
    X(free_encoded, void (*)(void *), 0, "plist_to_bin_free", "plist_mem_free")                      \
    X(plist_mem_free, void (*)(void *), 1, "plist_mem_free")                                         \
    X(plist_new_int, plist_t (*)(int64_t), 1, "plist_new_int")                                       \
    X(libplist_version, const char *(*)(void), 1, "libplist_version")

static struct {
    CPLIST_FUNCTIONS(CLIBRARY_FIELD)
} plist;

/// 1 when the loaded libplist has 2.3's ABI (plist_err_t results, PLIST_NONE -1, PLIST_NULL 10),
/// 0 for 2.2's (void results, PLIST_NONE 10). 2.3.0 made all these changes together with
/// replacing plist_to_bin_free by plist_mem_free, so which of the two it exports tells.
static int abi23;

/// Sets abi23 and, where libplist has no libplist_version (before 2.4), a version told by what it
/// exports.
static void cplist_identify(struct clibrary *library) {
    abi23 = plist.plist_mem_free != NULL && plist.free_encoded == plist.plist_mem_free;
    if (library->version[0] == 0) snprintf(library->version, sizeof library->version, "%s", abi23 ? "2.3" : "2.2 or older");
}

// Linux: the 2.3+ soname, 2.2's (Debian 12), the development link; macOS: the same through the
// dyld search path, then Homebrew's (Apple silicon, Intel).
CLIBRARY_DEFINE(cplist, "libplist", plist, CPLIST_FUNCTIONS, "libplist_version", cplist_identify, NULL,
#if defined(__APPLE__)
                "libplist-2.0.4.dylib", "libplist-2.0.3.dylib", "libplist-2.0.dylib",
                "/opt/homebrew/lib/libplist-2.0.dylib", "/usr/local/lib/libplist-2.0.dylib"
#else
                "libplist-2.0.so.4", "libplist-2.0.so.3", "libplist-2.0.so"
#endif
)

cplist_type cplist_node_type(plist_t node) {
    if (!cplist_available()) return CPLIST_NONE;
    int type = plist.plist_get_node_type(node);
    // 0 (BOOLEAN) to 9 (UID) are the same in both; 2.2's 10 is NONE, 2.3's 10 is NULL.
    if (type >= 0 && type <= 9) return (cplist_type)(CPLIST_BOOLEAN + type);
    if (type == 10) return abi23 ? CPLIST_NULL : CPLIST_NONE;
    if (type == -1 && abi23) return CPLIST_NONE;
    return CPLIST_UNKNOWN;
}

// 2.2's plist_to_bin and parsers return void: their "result" is whatever is in the return
// register, so it is read only from a 2.3+ library.
int cplist_to_bin(plist_t node, char **bytes, uint32_t *length) {
    *bytes = NULL;
    *length = 0;
    if (!cplist_available()) return 0;
    int result = plist.plist_to_bin(node, bytes, length);
    if (abi23 && result != 0 && *bytes != NULL) {
        plist.free_encoded(*bytes);
        *bytes = NULL;
    }
    if (*bytes == NULL) *length = 0;
    return *bytes != NULL;
}

void cplist_free_encoded(char *bytes) {
    if (bytes != NULL && cplist_available()) plist.free_encoded(bytes);
}

/// plist_from_bin or plist_from_xml (`parse`), NULL on any failure.
static plist_t parsed(int (*parse)(const char *, uint32_t, plist_t *), const char *bytes, uint32_t length) {
    plist_t node = NULL;  // 2.2 leaves it untouched on some failures
    int result = parse(bytes, length, &node);
    if (abi23 && result != 0 && node != NULL) {
        plist.plist_free(node);
        node = NULL;
    }
    return node;
}

plist_t cplist_from_bin(const char *bytes, uint32_t length) {
    return cplist_available() ? parsed(plist.plist_from_bin, bytes, length) : NULL;
}

plist_t cplist_from_xml(const char *bytes, uint32_t length) {
    return cplist_available() ? parsed(plist.plist_from_xml, bytes, length) : NULL;
}

plist_t cplist_new_int(int64_t value) {
    if (!cplist_available()) return NULL;
    return abi23 && plist.plist_new_int != NULL ? plist.plist_new_int(value) : plist.plist_new_uint((uint64_t)value);
}

plist_t cplist_new_data(const char *bytes, uint64_t length) {
    return cplist_available() ? plist.plist_new_data(bytes, length) : NULL;
}

void cplist_get_data_val(plist_t node, char **bytes, uint64_t *length) {
    *bytes = NULL;
    *length = 0;
    if (cplist_available()) plist.plist_get_data_val(node, bytes, length);
}

void cplist_free_memory(void *memory) {
    if (memory == NULL) return;
    // plist_mem_free is free() in every release so far; calling it keeps to what 2.3+ documents.
    if (cplist_available() && plist.plist_mem_free != NULL) plist.plist_mem_free(memory);
    else free(memory);
}

// Hidden, as in CZlib: only xds's own code calls these.
#pragma GCC visibility push(hidden)

#define CPLIST_NEW(name, parameters, arguments) \
    plist_t name parameters { return cplist_available() ? plist.name arguments : NULL; }
#define CPLIST_VOID(name, parameters, arguments, otherwise) \
    void name parameters { if (cplist_available()) plist.name arguments; else { otherwise; } }

CPLIST_NEW(plist_new_dict, (void), ())
CPLIST_NEW(plist_new_array, (void), ())
CPLIST_NEW(plist_new_string, (const char *val), (val))
CPLIST_NEW(plist_new_bool, (uint8_t val), (val))
CPLIST_NEW(plist_new_uint, (uint64_t val), (val))
CPLIST_NEW(plist_new_real, (double val), (val))
CPLIST_NEW(plist_new_uid, (uint64_t val), (val))
CPLIST_VOID(plist_free, (plist_t node), (node), )
CPLIST_VOID(plist_array_append_item, (plist_t node, plist_t item), (node, item), )
CPLIST_VOID(plist_array_new_iter, (plist_t node, plist_array_iter *iter), (node, iter), *iter = NULL)
CPLIST_VOID(plist_array_next_item, (plist_t node, plist_array_iter iter, plist_t *item), (node, iter, item),
            *item = NULL)
CPLIST_VOID(plist_dict_new_iter, (plist_t node, plist_dict_iter *iter), (node, iter), *iter = NULL)
CPLIST_VOID(plist_dict_next_item, (plist_t node, plist_dict_iter iter, char **key, plist_t *val),
            (node, iter, key, val), if (key) *key = NULL; *val = NULL)
CPLIST_VOID(plist_dict_set_item, (plist_t node, const char *key, plist_t item), (node, key, item), )
CPLIST_VOID(plist_get_key_val, (plist_t node, char **val), (node, val), *val = NULL)
CPLIST_VOID(plist_get_string_val, (plist_t node, char **val), (node, val), *val = NULL)
CPLIST_VOID(plist_get_bool_val, (plist_t node, uint8_t *val), (node, val), *val = 0)
CPLIST_VOID(plist_get_uint_val, (plist_t node, uint64_t *val), (node, val), *val = 0)
CPLIST_VOID(plist_get_real_val, (plist_t node, double *val), (node, val), *val = 0)
CPLIST_VOID(plist_get_uid_val, (plist_t node, uint64_t *val), (node, val), *val = 0)

uint32_t plist_array_get_size(plist_t node) {
    return cplist_available() ? plist.plist_array_get_size(node) : 0;
}

#pragma GCC visibility pop
