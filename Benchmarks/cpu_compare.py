#!/usr/bin/env python3
# A/B of whole `xds mask` processes on a busy machine: runs the given binaries alternately N
# times each on one icon and prints the CPU time (user+sys, from wait4) per run: min, 25th
# percentile and median. CPU time and the low percentiles resist other jobs far better than wall time.
# usage: Benchmarks/cpu_compare.py N SIZE XDS_A XDS_B ...   (IN=icon.png, default the project's
# own img/icon-1024.png)
import os, sys, statistics as st
n, size, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
inp = os.environ.get('IN', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'img', 'icon-1024.png'))
res = {b: [] for b in bins}
devnull = os.open('/dev/null', os.O_WRONLY)
for i in range(n):
    for b in bins:
        pid = os.fork()
        if pid == 0:
            os.dup2(devnull, 1); os.dup2(devnull, 2)
            os.execv(b, [b, 'mask', inp, '--size', size, '-o', '/tmp/o-mint.png'])
        _, status, ru = os.wait4(pid, 0)
        res[b].append((ru.ru_utime + ru.ru_stime) * 1000)
for b in bins:
    xs = sorted(res[b])
    print(f'{b:14} min {xs[0]:.2f}  p25 {xs[len(xs)//4]:.2f}  median {st.median(xs):.2f} ms CPU ({n} runs)')
