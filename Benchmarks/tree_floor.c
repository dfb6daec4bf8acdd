/* The floor for `xds show -r` (Benchmarks/tree_bench.sh): a single-threaded walk that does
 * only the system calls a tree reader cannot avoid, and writes nothing.
 *
 *     cc -O2 -o tree_floor tree_floor.c && ./tree_floor DIR [-v]
 *
 * Each folder is opened (openat, O_DIRECTORY | O_NOFOLLOW) and read with getdents64; every
 * entry but . and .. gets one llistxattr by its full path (symbolic links are not followed:
 * the l- calls), and an entry whose list has user.x-document-source gets one lgetxattr of it.
 * Folders are entered depth first, after their own listing. -v prints the counts to stderr. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static const char attribute[] = "user.x-document-source";
static long entries, folders, tagged;
static char path[PATH_MAX * 2];

static int has_attribute(const char *list, ssize_t length) {
    for (ssize_t at = 0; at < length; at += strlen(list + at) + 1) {
        if (strcmp(list + at, attribute) == 0) return 1;
    }
    return 0;
}

static void examine(void) {
    char list[4096], value[65536];
    entries++;
    ssize_t length = llistxattr(path, list, sizeof list);
    if (length > 0 && has_attribute(list, length)) {
        if (lgetxattr(path, attribute, value, sizeof value) >= 0) tagged++;
    }
}

/* Walks the open folder fd whose path (without a trailing slash) is path[0..length). */
static void walk(int fd, size_t length) {
    char buffer[32768];
    folders++;
    /* Subfolder names, entered after the listing (a folder's own listing first). */
    size_t cap = 4096, used = 0;
    char *subfolders = malloc(cap);
    for (;;) {
        long read = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
        if (read <= 0) break;
        for (long at = 0; at < read;) {
            struct linux_dirent64 *entry = (struct linux_dirent64 *)(buffer + at);
            at += entry->d_reclen;
            const char *name = entry->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
            size_t nameLength = strlen(name);
            if (length + 1 + nameLength + 1 > sizeof path) continue;
            path[length] = '/';
            memcpy(path + length + 1, name, nameLength + 1);
            examine();
            if (entry->d_type == DT_DIR) {
                if (used + nameLength + 1 > cap) {
                    while (used + nameLength + 1 > cap) cap *= 2;
                    subfolders = realloc(subfolders, cap);
                }
                memcpy(subfolders + used, name, nameLength + 1);
                used += nameLength + 1;
            }
        }
    }
    for (size_t at = 0; at < used; at += strlen(subfolders + at) + 1) {
        const char *name = subfolders + at;
        size_t nameLength = strlen(name);
        int child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child < 0) continue;
        path[length] = '/';
        memcpy(path + length + 1, name, nameLength + 1);
        walk(child, length + 1 + nameLength);
        path[length] = 0;
    }
    free(subfolders);
    close(fd);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: tree_floor DIR [-v]\n");
        return 64;
    }
    size_t length = strlen(argv[1]);
    while (length > 1 && argv[1][length - 1] == '/') length--;
    if (length >= PATH_MAX) return 64;
    memcpy(path, argv[1], length);
    path[length] = 0;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        perror(argv[1]);
        return 66;
    }
    walk(fd, length);
    if (argc > 2 && strcmp(argv[2], "-v") == 0) {
        fprintf(stderr, "%ld entries, %ld folders, %ld tagged\n", entries, folders, tagged);
    }
    return 0;
}
