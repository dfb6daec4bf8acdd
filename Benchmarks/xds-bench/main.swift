// In-process benchmarks for IconMask (decode throughput). Filled in by the benchmark work.
import IconMask
print("xds-bench: nothing yet")
