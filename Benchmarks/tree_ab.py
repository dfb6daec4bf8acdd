#!/usr/bin/env python3
# A/B of whole tree walks on a busy machine: runs the given commands in turn, round after round
# (forward, then backward), standard output to /dev/null, and prints per command the wall time
# and the CPU time (user+sys, from wait4) of its runs: min, 25th percentile and median, and the
# medians' ratio to the first command's. CPU time and the low percentiles resist other jobs far
# better than wall time (with a load of 10 on 2 cores, wall medians of one binary drift 10 %).
# usage: Benchmarks/tree_ab.py ROUNDS NAME=COMMAND...   (commands split on spaces, no quoting)
# e.g.   Benchmarks/tree_ab.py 30 "main=/tmp/xds-main show -r --json -j 1 T" "new=.build/release/xds show -r --json -j 1 T"
import os, sys, time, statistics as st
rounds, specs = int(sys.argv[1]), sys.argv[2:]
cmds = [(s.split('=', 1)[0], s.split('=', 1)[1].split()) for s in specs]
wall = {n: [] for n, _ in cmds}
cpu = {n: [] for n, _ in cmds}
devnull = os.open('/dev/null', os.O_WRONLY)
for r in range(rounds + 1):
    for name, argv in (cmds if r % 2 == 0 else list(reversed(cmds))):
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            os.dup2(devnull, 1)
            os.execv(argv[0], argv)
        _, status, ru = os.wait4(pid, 0)
        if r == 0:
            continue  # warm-up round
        wall[name].append((time.monotonic() - start) * 1000)
        cpu[name].append((ru.ru_utime + ru.ru_stime) * 1000)
def q(xs):
    xs = sorted(xs)
    return xs[0], xs[len(xs) // 4], st.median(xs)
base = cmds[0][0]
print(f'{"command":14} {"wall min":>9} {"p25":>8} {"median":>8} {"ratio":>6}   {"cpu min":>8} {"p25":>8} {"median":>8} {"ratio":>6}  (ms, {rounds} rounds)')
for name, _ in cmds:
    w, c = q(wall[name]), q(cpu[name])
    print(f'{name:14} {w[0]:9.1f} {w[1]:8.1f} {w[2]:8.1f} {w[2] / q(wall[base])[2]:6.3f}   '
          f'{c[0]:8.1f} {c[1]:8.1f} {c[2]:8.1f} {c[2] / q(cpu[base])[2]:6.3f}')
