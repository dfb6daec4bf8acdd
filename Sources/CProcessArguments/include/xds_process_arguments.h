// The command line from main's own argc and argv, for Swift's CommandLine (see
// process_arguments.c). The work is done before main; nothing needs calling.
#ifndef XDS_PROCESS_ARGUMENTS_H
#define XDS_PROCESS_ARGUMENTS_H

/// Whether the arguments were taken from what the C library passed at start-up (glibc);
/// otherwise CommandLine reads them its own way.
int xds_process_arguments_from_startup(void);

/// Fixes glibc's mmap threshold at `bytes` (blocks that large are mapped on their own, and the
/// threshold no longer rises as they are freed); nothing elsewhere. For the walks (issue 35).
void xds_fix_mmap_threshold(int bytes);

#endif
