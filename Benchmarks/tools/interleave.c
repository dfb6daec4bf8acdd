// interleave [-w WARMUP] [-x MAXSTATUS] RUNS NAME=COMMAND... : runs the commands in turn, round after round (forward, then
// backward, so that no command always follows the same one), standard output to /dev/null, and
// prints each one's median, 10th percentile and mean wall time in ms, and its median's ratio to
// the first command's. For start-up times of a few ms, where the order of runs matters: one
// command's runs all in a row (as hyperfine does) can differ by 10 % from the same runs spread
// over the same minutes. WARMUP rounds (default 20) are not counted. A command exiting with a
// status over MAXSTATUS (default 0; `xds check` exits 1 when it finds something) stops the run.
// Commands are split on spaces (no quoting); the program is a path.
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

enum { maxCommands = 16, maxArguments = 64 };

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int warmUp = 20, maxStatus = 0;
    while (argc > 2 && (strcmp(argv[1], "-w") == 0 || strcmp(argv[1], "-x") == 0)) {
        if (argv[1][1] == 'w') warmUp = atoi(argv[2]); else maxStatus = atoi(argv[2]);
        argv += 2;
        argc -= 2;
    }
    if (argc < 3 || argc - 2 > maxCommands || warmUp < 0) {
        fprintf(stderr, "usage: interleave [-w WARMUP] [-x MAXSTATUS] RUNS NAME=COMMAND... (at most %d commands)\n", maxCommands);
        return 64;
    }
    int runs = atoi(argv[1]), count = argc - 2;
    if (runs < 1) { fprintf(stderr, "interleave: RUNS must be at least 1\n"); return 64; }
    const char *names[maxCommands];
    char *arguments[maxCommands][maxArguments + 1];
    for (int i = 0; i < count; i++) {
        char *spec = strdup(argv[i + 2]), *equals = strchr(spec, '=');
        if (equals == NULL) { fprintf(stderr, "interleave: %s: expected NAME=COMMAND\n", spec); return 64; }
        *equals = '\0';
        names[i] = spec;
        int n = 0;
        for (char *word = strtok(equals + 1, " "); word != NULL && n < maxArguments; word = strtok(NULL, " ")) {
            arguments[i][n++] = word;
        }
        arguments[i][n] = NULL;
    }
    double *times = calloc((size_t)runs * count, sizeof(double));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    for (int round = -warmUp; round < runs; round++) {
        for (int k = 0; k < count; k++) {
            int i = (round & 1) ? count - 1 - k : k;
            struct timespec start, end;
            pid_t child;
            int status;
            clock_gettime(CLOCK_MONOTONIC, &start);
            if (posix_spawn(&child, arguments[i][0], &actions, NULL, arguments[i], environ) != 0) {
                fprintf(stderr, "interleave: cannot run %s\n", arguments[i][0]);
                return 69;
            }
            waitpid(child, &status, 0);
            clock_gettime(CLOCK_MONOTONIC, &end);
            if (!WIFEXITED(status) || WEXITSTATUS(status) > maxStatus) {
                fprintf(stderr, "interleave: %s failed (status %d)\n", names[i], status);
                return 70;
            }
            if (round >= 0) {
                times[(size_t)i * runs + round] = (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6;
            }
        }
    }
    double firstMedian = 0;
    printf("%-24s %10s %10s %10s %8s\n", "command", "median ms", "p10 ms", "mean ms", "ratio");
    for (int i = 0; i < count; i++) {
        double *own = times + (size_t)i * runs, sum = 0;
        for (int r = 0; r < runs; r++) sum += own[r];
        qsort(own, runs, sizeof(double), ascending);
        double median = own[runs / 2];
        if (i == 0) firstMedian = median;
        printf("%-24s %10.3f %10.3f %10.3f %8.2f\n", names[i], median, own[runs / 10], sum / runs, median / firstMedian);
    }
    return 0;
}
