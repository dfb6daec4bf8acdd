// <sys/xattr.h> is not part of Swift's Glibc module; this header exposes it.
#ifndef CXATTR_H
#define CXATTR_H
#include <sys/types.h>
#include <sys/xattr.h>

/// Linux inode flags of `path` (FS_IOC_GETFLAGS, what `lsattr` shows), to explain an EPERM:
/// an immutable or append-only file refuses attribute changes even to root. Returns 0 and
/// sets `*flags`, or -1 with errno set (also on systems without such flags).
int cxattr_inode_flags(const char *path, int follow, unsigned int *flags);

/// The attribute names of `name` in the open folder `folder`, not following a symbolic link:
/// llistxattr without resolving the folder's path again for every file (Linux 6.13's
/// listxattrat). Returns the list's size, or -1 with errno set; errno ENOSYS when the running
/// kernel (or a seccomp filter) does not offer listxattrat, and from then on without asking it.
ssize_t cxattr_list_in_folder(int folder, const char *name, char *list, size_t size);

/// The value of the attribute `attribute` of `name` in the open folder `folder`, not following
/// a symbolic link (Linux 6.13's getxattrat): as lgetxattr, without the path. Returns the
/// value's size (`size` 0: only that), or -1 with errno set; errno ENOSYS when the running
/// kernel (or a seccomp filter) does not offer getxattrat, and from then on without asking it.
ssize_t cxattr_get_in_folder(int folder, const char *name, const char *attribute, void *value, size_t size);

/// flistxattr, fgetxattr, fsetxattr (flags 0: create or replace) and fremovexattr of the open
/// file `fd`, with Linux's signatures on every system (Darwin's take a position and options).
ssize_t cxattr_flist(int fd, char *list, size_t size);
ssize_t cxattr_fget(int fd, const char *name, void *value, size_t size);
int cxattr_fset(int fd, const char *name, const void *value, size_t size);
int cxattr_fremove(int fd, const char *name);

/// The flags of cxattr_inode_flags that forbid attribute changes (0 where there are none).
extern const unsigned int cxattr_immutable_flag;
extern const unsigned int cxattr_append_only_flag;
#endif
