#include "cxattr.h"
#include <errno.h>

#ifdef __linux__
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

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
