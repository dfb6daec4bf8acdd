// <sys/xattr.h> is not part of Swift's Glibc module; this header exposes it.
#ifndef CXATTR_H
#define CXATTR_H
#include <sys/types.h>
#include <sys/xattr.h>
#endif
