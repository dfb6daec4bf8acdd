// How many tests Swift Testing runs at once in the test process: twice the cores, unless
// SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH is set already (then that, as Swift Testing
// reads it). Without a width Swift Testing starts every test at once, and since the tests wait
// for their programs off the pool (XDSTestSupport's ProcessRun.swift) nothing else holds them
// back: some 900 tests and their programs would share the cores, and each test's time limit,
// counted from its start, would measure the whole run's load rather than the test.
//
// Set before main (a constructor), where Swift Testing's entry point reads its environment.

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void xds_tests_parallelization_width(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    char width[32];
    snprintf(width, sizeof width, "%ld", cores * 2);
    setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", width, 0);
}
