#include "clibraryloader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

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

// One lock for every library's first load: loads are rare, and a load must finish before
// anyone reads the table it fills.
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

int clibrary_load(struct clibrary *library) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state != 0) return state == 1;
    pthread_mutex_lock(&loading);
    if (library->state == 0) {
        void *handle = clibrary_open(library->names, library->nameCount, library->error, sizeof library->error);
        int found = handle != NULL;
        for (size_t i = 0; found && i < library->symbolCount; i++) {
            library->addresses[i] = dlsym(handle, library->symbols[i]);
            if (library->addresses[i] == NULL) {
                snprintf(library->error, sizeof library->error, "%s lacks %s (too old for xds)",
                         library->label, library->symbols[i]);
                memset(library->addresses, 0, library->symbolCount * sizeof library->addresses[0]);
                found = 0;
            }
        }
        __atomic_store_n(&library->state, found ? 1 : 2, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&loading);
    return library->state == 1;
}
