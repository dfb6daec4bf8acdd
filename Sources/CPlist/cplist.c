// Opens libplist on first use and forwards each function the Swift code calls
// (include/cplist.h).
#include "cplist.h"

#include <clibraryloader.h>

#define CPLIST_FUNCTIONS(X) \
    X(plist_new_dict) X(plist_new_array) X(plist_new_string) X(plist_new_bool) X(plist_new_uint) \
    X(plist_new_real) X(plist_new_data) X(plist_new_date) X(plist_new_uid) X(plist_free) \
    X(plist_array_get_size) X(plist_array_get_item) X(plist_array_append_item) \
    X(plist_array_new_iter) X(plist_array_next_item) X(plist_dict_new_iter) X(plist_dict_next_item) \
    X(plist_dict_set_item) X(plist_get_node_type) X(plist_get_key_val) X(plist_get_string_val) \
    X(plist_get_bool_val) X(plist_get_uint_val) X(plist_get_real_val) X(plist_get_data_val) \
    X(plist_get_date_val) X(plist_get_uid_val) X(plist_to_bin) X(plist_to_bin_free) \
    X(plist_from_xml) X(plist_from_bin)

static struct {
    CPLIST_FUNCTIONS(CLIBRARY_FIELD)
} plist;
// Debian's soname, the development link, then Homebrew's (Apple silicon, Intel).
CLIBRARY_DEFINE(cplist, "libplist", plist, CPLIST_FUNCTIONS,
                "libplist-2.0.so.3", "libplist-2.0.so", "/opt/homebrew/lib/libplist-2.0.dylib",
                "/usr/local/lib/libplist-2.0.dylib")

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
CPLIST_NEW(plist_new_data, (const char *val, uint64_t length), (val, length))
CPLIST_NEW(plist_new_date, (int32_t sec, int32_t usec), (sec, usec))
CPLIST_NEW(plist_new_uid, (uint64_t val), (val))
CPLIST_NEW(plist_array_get_item, (plist_t node, uint32_t n), (node, n))
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
CPLIST_VOID(plist_get_data_val, (plist_t node, char **val, uint64_t *length), (node, val, length),
            *val = NULL; *length = 0)
CPLIST_VOID(plist_get_date_val, (plist_t node, int32_t *sec, int32_t *usec), (node, sec, usec),
            *sec = 0; *usec = 0)
CPLIST_VOID(plist_get_uid_val, (plist_t node, uint64_t *val), (node, val), *val = 0)
CPLIST_VOID(plist_to_bin_free, (char *plist_bin), (plist_bin), )

uint32_t plist_array_get_size(plist_t node) {
    return cplist_available() ? plist.plist_array_get_size(node) : 0;
}

plist_type plist_get_node_type(plist_t node) {
    return cplist_available() ? plist.plist_get_node_type(node) : PLIST_NONE;
}

// void in libplist 2.2, plist_err_t later; (RESULT)0 is "nothing" or PLIST_ERR_SUCCESS, and the
// caller reads the NULL output as the failure.
typedef __typeof__(plist_to_bin(NULL, NULL, NULL)) cplist_encode_result;
typedef __typeof__(plist_from_bin(NULL, 0, NULL)) cplist_parse_result;

cplist_encode_result plist_to_bin(plist_t node, char **plist_bin, uint32_t *length) {
    if (!cplist_available()) { *plist_bin = NULL; *length = 0; return (cplist_encode_result)0; }
    return plist.plist_to_bin(node, plist_bin, length);
}

cplist_parse_result plist_from_xml(const char *plist_xml, uint32_t length, plist_t *node) {
    if (!cplist_available()) { *node = NULL; return (cplist_parse_result)0; }
    return plist.plist_from_xml(plist_xml, length, node);
}

cplist_parse_result plist_from_bin(const char *plist_bin, uint32_t length, plist_t *node) {
    if (!cplist_available()) { *node = NULL; return (cplist_parse_result)0; }
    return plist.plist_from_bin(plist_bin, length, node);
}

#pragma GCC visibility pop
