// Swift's CommandLine on Linux finds argv by reading /proc/self/maps (to locate the initial
// stack, then walking back from environ); with no /proc mounted (a chroot, a sandbox) it finds
// nothing and every command saw no arguments at all (issue 24). glibc passes argc, argv and
// envp to each constructor in .init_array, as it passes them to main, so they are taken here,
// before main, and handed to the runtime's own override, which CommandLine consults first.
#include "xds_process_arguments.h"

#include <stddef.h>
#include <stdlib.h>

static int fromStartup = 0;

#if defined(__linux__) && defined(__GLIBC__)
// The Swift runtime's hook for hosts that know argv better than it does (the REPL and JIT use
// it); a Swift-convention function in libswiftCore, static or shared.
extern void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) __attribute__((swiftcall));

__attribute__((constructor)) static void xds_take_process_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argv == NULL || argc < 0) return;
    _swift_stdlib_overrideUnsafeArgvArgc(argv, argc);
    fromStartup = 1;
}
#endif

int xds_process_arguments_from_startup(void) { return fromStartup; }

#if defined(__GLIBC__)
#include <malloc.h>
void xds_fix_mmap_threshold(int bytes) { mallopt(M_MMAP_THRESHOLD, bytes); }
#else
void xds_fix_mmap_threshold(int bytes) { (void)bytes; }
#endif
