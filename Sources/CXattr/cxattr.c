#include "cxattr.h"
#include <errno.h>
#include <stdint.h>

#ifdef __APPLE__
ssize_t cxattr_flist(int fd, char *list, size_t size) { return flistxattr(fd, list, size, 0); }
ssize_t cxattr_fget(int fd, const char *name, void *value, size_t size) { return fgetxattr(fd, name, value, size, 0, 0); }
int cxattr_fset(int fd, const char *name, const void *value, size_t size) { return fsetxattr(fd, name, value, size, 0, 0); }
int cxattr_fremove(int fd, const char *name) { return fremovexattr(fd, name, 0); }
#else
ssize_t cxattr_flist(int fd, char *list, size_t size) { return flistxattr(fd, list, size); }
ssize_t cxattr_fget(int fd, const char *name, void *value, size_t size) { return fgetxattr(fd, name, value, size); }
int cxattr_fset(int fd, const char *name, const void *value, size_t size) { return fsetxattr(fd, name, value, size, 0); }
int cxattr_fremove(int fd, const char *name) { return fremovexattr(fd, name); }
#endif

#ifdef __linux__
#include <fcntl.h>
#include <linux/fs.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// listxattrat (Linux 6.13) has the same number on every architecture that uses the generic
// table; glibc 2.36's headers predate it.
#if !defined(SYS_listxattrat) && (defined(__x86_64__) || defined(__aarch64__))
#define SYS_listxattrat 465
#endif

static atomic_bool listxattratMissing;

// getxattrat (Linux 6.13) likewise.
#if !defined(SYS_getxattrat) && (defined(__x86_64__) || defined(__aarch64__))
#define SYS_getxattrat 464
#endif

static atomic_bool getxattratMissing;

ssize_t cxattr_get_in_folder(int folder, const char *name, const char *attribute, void *value, size_t size) {
#ifdef SYS_getxattrat
    if (!atomic_load_explicit(&getxattratMissing, memory_order_relaxed)) {
        // struct xattr_args of <linux/xattr.h> (newer than glibc 2.36's kernel headers).
        struct { unsigned long long value; unsigned int size; unsigned int flags; } args = {
            (unsigned long long)(uintptr_t)value, (unsigned int)size, 0
        };
        long result = syscall(SYS_getxattrat, folder, name, AT_SYMLINK_NOFOLLOW, attribute, &args, sizeof args);
        if (result >= 0) return (ssize_t)result;
        // EPERM may be a seccomp filter's answer: this call goes by path (which says whether
        // it was one), and the next asks again.
        if (errno != ENOSYS && errno != EPERM) return -1;
        if (errno == ENOSYS) atomic_store_explicit(&getxattratMissing, 1, memory_order_relaxed);
    }
#else
    (void)folder; (void)name; (void)attribute; (void)value; (void)size;
#endif
    errno = ENOSYS;
    return -1;
}

ssize_t cxattr_list_in_folder(int folder, const char *name, char *list, size_t size) {
#ifdef SYS_listxattrat
    if (!atomic_load_explicit(&listxattratMissing, memory_order_relaxed)) {
        long result = syscall(SYS_listxattrat, folder, name, AT_SYMLINK_NOFOLLOW, list, size);
        if (result >= 0) return (ssize_t)result;
        // ENOSYS: an older kernel; EPERM: a seccomp filter that does not know the call (a
        // listing is never refused with EPERM otherwise). Either way, stop asking.
        if (errno != ENOSYS && errno != EPERM) return -1;
        atomic_store_explicit(&listxattratMissing, 1, memory_order_relaxed);
    }
#else
    (void)folder; (void)name; (void)list; (void)size;
#endif
    errno = ENOSYS;
    return -1;
}

const unsigned int cxattr_immutable_flag = FS_IMMUTABLE_FL;
const unsigned int cxattr_append_only_flag = FS_APPEND_FL;

int cxattr_inode_flags(const char *path, int follow, unsigned int *flags) {
    // O_NONBLOCK: a FIFO must not block the open; the caller asks only about files and folders.
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
    if (fd < 0) return -1;
    int value = 0;  // the kernel reads and writes an int, whatever the ioctl's declared type
    int result = ioctl(fd, FS_IOC_GETFLAGS, &value);
    int saved = errno;
    close(fd);
    if (result < 0) {
        errno = saved;
        return -1;
    }
    *flags = (unsigned int)value;
    return 0;
}
#else
ssize_t cxattr_get_in_folder(int folder, const char *name, const char *attribute, void *value, size_t size) {
    (void)folder; (void)name; (void)attribute; (void)value; (void)size;
    errno = ENOSYS;
    return -1;
}

ssize_t cxattr_list_in_folder(int folder, const char *name, char *list, size_t size) {
    (void)folder; (void)name; (void)list; (void)size;
    errno = ENOSYS;
    return -1;
}

const unsigned int cxattr_immutable_flag = 0;
const unsigned int cxattr_append_only_flag = 0;

int cxattr_inode_flags(const char *path, int follow, unsigned int *flags) {
    (void)path;
    (void)follow;
    (void)flags;
    errno = ENOTSUP;
    return -1;
}
#endif
