#include "clibraryloader.h"

#include <dlfcn.h>
#include <stdio.h>

void *clibrary_open(const char *const names[], size_t count, char *error, size_t errorSize) {
    char first[256] = "";
    for (size_t i = 0; i < count; i++) {
        void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (library != NULL) return library;
        const char *why = dlerror();
        if (i == 0 && why != NULL) snprintf(first, sizeof first, "%s", why);
    }
    if (first[0]) snprintf(error, errorSize, "%s", first);
    else snprintf(error, errorSize, "%s not found", count > 0 ? names[0] : "library");
    return NULL;
}

int clibrary_symbol(void *library, const char *libraryName, const char *name, void **address,
                    char *error, size_t errorSize) {
    *address = dlsym(library, name);
    if (*address != NULL) return 0;
    snprintf(error, errorSize, "%s lacks %s (too old for xds)", libraryName, name);
    return -1;
}
