// A stand-in libplist for LibplistLoadingTests, built at test time with cc: it exports the
// symbol set and ABI of one libplist series and forwards every call to the real libplist 2.2
// (REAL_LIBPLIST, an absolute path), so that the loader's choice (which soname, which free
// function, which numbering of node types, whether results are plist_err_t) is tested on a
// system that has only 2.2. Each call of a function whose choice is tested is appended, one
// name a line, to the file named by XDS_TEST_PLIST_SHIM_LOG.
//
//   -DSHIM_ABI=23   libplist 2.3+ (libplist-2.0.so.4): plist_err_t results, PLIST_NONE -1,
//                   plist_mem_free and no plist_to_bin_free.
//   -DSHIM_ABI=22   libplist 2.2 (libplist-2.0.so.3): void results, plist_to_bin_free.
//   -DSHIM_VERSION="2.4.0-shim"   also export libplist_version (2.4+).
//   -DSHIM_WITHOUT_NEW_UID        leave plist_new_uid out (a library lacking a function).
//
// No libplist header: the two ABIs differ in return types, so the prototypes are written here.
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *plist_t;

static void *real;

static void *lookUp(const char *name) {
    if (real == NULL) real = dlopen(REAL_LIBPLIST, RTLD_NOW | RTLD_LOCAL);
    void *function = real != NULL ? dlsym(real, name) : NULL;
    if (function == NULL) {
        fprintf(stderr, "plist_shim: %s not found in %s\n", name, REAL_LIBPLIST);
        abort();
    }
    return function;
}

static void logCall(const char *name) {
    const char *path = getenv("XDS_TEST_PLIST_SHIM_LOG");
    if (path == NULL || path[0] == 0) return;
    int file = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (file < 0) return;
    char line[64];
    int length = snprintf(line, sizeof line, "%s\n", name);
    (void)!write(file, line, (size_t)length);
    close(file);
}

#define FORWARD(type, name, parameters, arguments)                      \
    type name parameters {                                              \
        static type(*function) parameters;                              \
        if (function == NULL) function = (type(*) parameters)lookUp(#name); \
        return function arguments;                                      \
    }

FORWARD(plist_t, plist_new_dict, (void), ())
FORWARD(plist_t, plist_new_array, (void), ())
FORWARD(plist_t, plist_new_string, (const char *val), (val))
FORWARD(plist_t, plist_new_bool, (uint8_t val), (val))
FORWARD(plist_t, plist_new_uint, (uint64_t val), (val))
FORWARD(plist_t, plist_new_real, (double val), (val))
FORWARD(plist_t, plist_new_data, (const char *val, uint64_t length), (val, length))
#ifndef SHIM_WITHOUT_NEW_UID
FORWARD(plist_t, plist_new_uid, (uint64_t val), (val))
#endif
FORWARD(void, plist_free, (plist_t node), (node))
FORWARD(uint32_t, plist_array_get_size, (plist_t node), (node))
FORWARD(void, plist_array_append_item, (plist_t node, plist_t item), (node, item))
FORWARD(void, plist_array_new_iter, (plist_t node, void **iter), (node, iter))
FORWARD(void, plist_array_next_item, (plist_t node, void *iter, plist_t *item), (node, iter, item))
FORWARD(void, plist_dict_new_iter, (plist_t node, void **iter), (node, iter))
FORWARD(void, plist_dict_next_item, (plist_t node, void *iter, char **key, plist_t *val), (node, iter, key, val))
FORWARD(void, plist_dict_set_item, (plist_t node, const char *key, plist_t item), (node, key, item))
FORWARD(void, plist_get_key_val, (plist_t node, char **val), (node, val))
FORWARD(void, plist_get_string_val, (plist_t node, char **val), (node, val))
FORWARD(void, plist_get_bool_val, (plist_t node, uint8_t *val), (node, val))
FORWARD(void, plist_get_uint_val, (plist_t node, uint64_t *val), (node, val))
FORWARD(void, plist_get_real_val, (plist_t node, double *val), (node, val))
FORWARD(void, plist_get_data_val, (plist_t node, char **val, uint64_t *length), (node, val, length))
FORWARD(void, plist_get_uid_val, (plist_t node, uint64_t *val), (node, val))

static int (*realType)(plist_t);
static void (*realToBin)(plist_t, char **, uint32_t *);
static void (*realFromBin)(const char *, uint32_t, plist_t *);
static void (*realFromXML)(const char *, uint32_t, plist_t *);
static void (*realToBinFree)(char *);

#if SHIM_ABI == 23
// 2.3+: PLIST_NONE is -1 (2.2's 10), results are plist_err_t (PLIST_ERR_PARSE -3 on failure).
int plist_get_node_type(plist_t node) {
    if (realType == NULL) realType = (int (*)(plist_t))lookUp("plist_get_node_type");
    logCall("plist_get_node_type");
    int type = realType(node);
    return type == 10 ? -1 : type;
}

int plist_to_bin(plist_t node, char **bytes, uint32_t *length) {
    if (realToBin == NULL) realToBin = (void (*)(plist_t, char **, uint32_t *))lookUp("plist_to_bin");
    logCall("plist_to_bin");
    *bytes = NULL;
    realToBin(node, bytes, length);
    return *bytes != NULL ? 0 : -1;
}

int plist_from_bin(const char *bytes, uint32_t length, plist_t *node) {
    if (realFromBin == NULL) realFromBin = (void (*)(const char *, uint32_t, plist_t *))lookUp("plist_from_bin");
    logCall("plist_from_bin");
    *node = NULL;
    realFromBin(bytes, length, node);
    return *node != NULL ? 0 : -3;
}

int plist_from_xml(const char *bytes, uint32_t length, plist_t *node) {
    if (realFromXML == NULL) realFromXML = (void (*)(const char *, uint32_t, plist_t *))lookUp("plist_from_xml");
    logCall("plist_from_xml");
    *node = NULL;
    realFromXML(bytes, length, node);
    return *node != NULL ? 0 : -3;
}

void plist_mem_free(void *memory) {
    logCall("plist_mem_free");
    free(memory);
}
#else
// 2.2: void results, PLIST_NONE 10, plist_to_bin_free.
int plist_get_node_type(plist_t node) {
    if (realType == NULL) realType = (int (*)(plist_t))lookUp("plist_get_node_type");
    logCall("plist_get_node_type");
    return realType(node);
}

void plist_to_bin(plist_t node, char **bytes, uint32_t *length) {
    if (realToBin == NULL) realToBin = (void (*)(plist_t, char **, uint32_t *))lookUp("plist_to_bin");
    logCall("plist_to_bin");
    realToBin(node, bytes, length);
}

void plist_from_bin(const char *bytes, uint32_t length, plist_t *node) {
    if (realFromBin == NULL) realFromBin = (void (*)(const char *, uint32_t, plist_t *))lookUp("plist_from_bin");
    logCall("plist_from_bin");
    realFromBin(bytes, length, node);
}

void plist_from_xml(const char *bytes, uint32_t length, plist_t *node) {
    if (realFromXML == NULL) realFromXML = (void (*)(const char *, uint32_t, plist_t *))lookUp("plist_from_xml");
    logCall("plist_from_xml");
    realFromXML(bytes, length, node);
}

void plist_to_bin_free(char *bytes) {
    if (realToBinFree == NULL) realToBinFree = (void (*)(char *))lookUp("plist_to_bin_free");
    logCall("plist_to_bin_free");
    realToBinFree(bytes);
}
#endif

#ifdef SHIM_VERSION
const char *libplist_version(void) {
    return SHIM_VERSION;
}
#endif
