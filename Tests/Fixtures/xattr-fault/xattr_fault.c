// Preloaded (LD_PRELOAD) into xds by StripSidecarAttributesTests: fsetxattr of the attribute
// named in XDS_FAULT_XATTR fails with the errno in XDS_FAULT_ERRNO (a number); every other
// call goes to the C library. A failure no real filesystem gives on demand (EIO, ENOSPC).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags) {
    static int (*real)(int, const char *, const void *, size_t, int);
    const char *fault = getenv("XDS_FAULT_XATTR");
    if (fault && name && strcmp(name, fault) == 0) {
        const char *code = getenv("XDS_FAULT_ERRNO");
        errno = code ? atoi(code) : EIO;
        return -1;
    }
    if (!real) real = (int (*)(int, const char *, const void *, size_t, int))dlsym(RTLD_NEXT, "fsetxattr");
    return real(fd, name, value, size, flags);
}
