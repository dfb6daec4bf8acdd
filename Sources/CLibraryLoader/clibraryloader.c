#define _GNU_SOURCE  // dladdr
#include "clibraryloader.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// Whether dlerror's `text` for `name` says only that this file does not exist, not that it
/// exists but cannot be loaded or that a library it needs is missing (libcurl without libz is
/// not "not installed"). glibc: "NAME: cannot open shared object file: No such file or
/// directory", naming the dependency when that is what is missing. macOS: "dlopen(NAME, …):
/// tried: 'PATH' (REASON), …" with "no such file" as every reason, but "Library not loaded:
/// DEPENDENCY" for a dependency.
static int saysMissing(const char *text, const char *name) {
    if (strncmp(text, "dlopen(", 7) == 0) {
        if (strstr(text, "Library not loaded") != NULL) return 0;
        int reasons = 0;
        for (const char *p = strstr(text, "' ("); p != NULL; p = strstr(p + 3, "' (")) {
            if (strncasecmp(p + 3, "no such file", 12) != 0) return 0;
            reasons++;
        }
        return reasons > 0;
    }
    size_t length = strlen(name);
    return strncmp(text, name, length) == 0 && text[length] == ':' && strstr(text, "No such file") != NULL;
}

void *clibrary_open(const char *label, const char *const names[], size_t count, char *error,
                    size_t errorSize, int *missing) {
    char first[256] = "";
    for (size_t i = 0; i < count; i++) {
        void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (library != NULL) return library;
        const char *why = dlerror();
        if (first[0] == 0 && why != NULL && !saysMissing(why, names[i])) snprintf(first, sizeof first, "%s", why);
    }
    *missing = first[0] == 0;
    if (!*missing) {
        snprintf(error, errorSize, "%s could not be loaded: %s", label, first);
        return NULL;
    }
    size_t used = (size_t)snprintf(error, errorSize, "%s is not installed (tried", label);
    for (size_t i = 0; i < count && used < errorSize; i++) {
        used += (size_t)snprintf(error + used, errorSize - used, "%s %s", i == 0 ? "" : ",", names[i]);
    }
    if (used < errorSize) snprintf(error + used, errorSize - used, ")");
    return NULL;
}

void clibrary_found(const struct clibrary *library, char *text, size_t size) {
    if (library->version[0]) snprintf(text, size, "%s %s (%s)", library->label, library->version, library->path);
    else snprintf(text, size, "%s (%s)", library->label, library->path);
}

int clibrary_refuse(struct clibrary *library, const char *problem) {
    char found[sizeof library->description];
    clibrary_found(library, found, sizeof found);
    snprintf(library->error, sizeof library->error, "%s %s", found, problem);
    return 0;
}

/// The file `handle` was loaded from, through one of its functions (`address`): its real path,
/// so that the version in its name shows (libz.so.1.2.13).
static void findPath(struct clibrary *library, void *address) {
    Dl_info info;
    if (address == NULL || dladdr(address, &info) == 0 || info.dli_fname == NULL) return;
    char resolved[PATH_MAX];
    const char *path = realpath(info.dli_fname, resolved) != NULL ? resolved : info.dli_fname;
    snprintf(library->path, sizeof library->path, "%s", path);
}

/// Looks up every function of `library` in its open handle; 0 with the error set when a
/// required one is missing (under every one of its names), after the module's identify hook.
static int lookUp(struct clibrary *library) {
    const struct clibrary_function *lacking = NULL;
    for (size_t i = 0; i < library->functionCount; i++) {
        const struct clibrary_function *function = &library->functions[i];
        library->addresses[i] = NULL;
        for (size_t n = 0; function->names[n] != NULL && library->addresses[i] == NULL; n++) {
            library->addresses[i] = dlsym(library->handle, function->names[n]);
        }
        if (library->addresses[i] == NULL && !function->optional && lacking == NULL) lacking = function;
    }
    if (library->identify != NULL) library->identify(library);
    if (lacking == NULL) return 1;
    char problem[160] = "lacks ";
    for (size_t n = 0; lacking->names[n] != NULL; n++) {
        size_t used = strlen(problem);
        snprintf(problem + used, sizeof problem - used, "%s%s", n == 0 ? "" : " and ", lacking->names[n]);
    }
    return clibrary_refuse(library, problem);
}

// One lock for every library's first load: loads are rare, and a load must finish before
// anyone reads the table it fills.
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

int clibrary_load(struct clibrary *library) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state != CLIBRARY_NOT_LOADED) return state == CLIBRARY_LOADED;
    pthread_mutex_lock(&loading);
    if (library->state == CLIBRARY_NOT_LOADED) {
        int missing = 0;
        library->handle = clibrary_open(library->label, library->names, library->nameCount, library->error,
                                        sizeof library->error, &missing);
        int usable = library->handle != NULL;
        if (usable) {
            void *anyFunction = NULL;
            if (library->versionFunction != NULL) {
                const char *(*version)(void) = (const char *(*)(void))dlsym(library->handle, library->versionFunction);
                const char *text = version != NULL ? version() : NULL;
                // archive_version_string says "libarchive 3.6.2": the label is said once.
                size_t labelLength = strlen(library->label);
                if (text != NULL && strncmp(text, library->label, labelLength) == 0 && text[labelLength] == ' ') {
                    text += labelLength + 1;
                }
                if (text != NULL) snprintf(library->version, sizeof library->version, "%s", text);
                anyFunction = (void *)version;
            }
            for (size_t i = 0; anyFunction == NULL && i < library->functionCount; i++) {
                anyFunction = dlsym(library->handle, library->functions[i].names[0]);
            }
            findPath(library, anyFunction);
            if (library->path[0] == 0) snprintf(library->path, sizeof library->path, "%s", "unknown file");
            usable = lookUp(library) && (library->check == NULL || library->check(library));
            if (!usable) {
                memset(library->addresses, 0, library->functionCount * sizeof library->addresses[0]);
                dlclose(library->handle);
                library->handle = NULL;
            }
        }
        if (usable) {
            library->error[0] = 0;
            clibrary_found(library, library->description, sizeof library->description);
        } else {
            snprintf(library->description, sizeof library->description, "%s", library->error);
        }
        __atomic_store_n(&library->state,
                         usable ? CLIBRARY_LOADED : missing ? CLIBRARY_MISSING : CLIBRARY_UNUSABLE,
                         __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&loading);
    return library->state == CLIBRARY_LOADED;
}
