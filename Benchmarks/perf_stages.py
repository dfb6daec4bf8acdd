#!/usr/bin/env python3
"""Splits a `perf record -g` profile of whole `xds mask` processes into stages.

    perf_stages.py PERF.DATA JOBS SAMPLE_MS

Each sample goes to the first rule that matches: kernel work by what it is (exec, exit,
page faults on first touch of new buffers, mmap of big buffers, read, write), then the
innermost user frame with a known name (inflate, unfilter, resample, ...). libdeflate is
stripped, so its samples count under their Swift caller when the call chain has one.
Prints ms of CPU per job for each stage. Benchmarks/profile.sh runs it.
"""
import collections
import re
import subprocess
import sys

RULES = [
    ("dynamic loader (start-up)", r"ld-linux"),
    ("inflate", r"Inflate|inflate|libdeflate_zlib_decompress|libdeflate_deflate_decompress"),
    ("encode", r"PNGEncoder|ZlibCompressor|compress|appendChunk|crc32"),
    ("unfilter", r"unfilter"),
    ("convert to RGBA8", r"RowConverter|convertRows|FastPaths|fastPath"),
    ("decode: chunks, CRC, layout", r"PNGDecoder|PNGLayout|PNGHeader|Adam7|CgBI|PNGChunk"),
    ("resample", r"Resampler|ResampleWeights|lanczos|__sin|__cos|sin_fma|cos_fma"),
    ("shape + stroke", r"Rasteriser|CoverageMask|ShapePath|IconShape|IconMasker|composite|outline"),
    ("unpremultiply", r"PremultipliedImage|rgbaImage"),
    ("read input", r"readWhole"),
    ("write output", r"writeAtomically|writeAll|writeStandardOutput"),
    ("ArgumentParser (start-up)", r"ArgumentParser"),
    ("Swift runtime: conformances, metadata (start-up)", r"swift_conformsTo|swift_getGenericMetadata|swift::|swift_once|_swift_|swift_"),
]
KERNEL = [
    ("kernel: exec (start-up)", r"execve"),
    ("kernel: exit, freeing memory", r"exit_mmap|do_exit|do_group_exit"),
    ("kernel: page faults, first touch of buffers", r"page_fault"),
    ("kernel: mmap/munmap of big buffers", r"munmap|mmap_region|do_mmap"),
    ("kernel: read input", r"sys_read|vfs_read"),
    ("kernel: write, rename output", r"sys_write|vfs_write|rename|openat|unlink"),
]


def classify(frames):
    text = " ".join(frames)
    if frames and "kallsyms" in frames[0]:
        for name, rx in KERNEL:
            if re.search(rx, text) and (name.startswith("kernel: exec") or "ld-linux" not in text):
                return name
    for f in frames:
        if "kallsyms" in f:
            continue
        for name, rx in RULES:
            if re.search(rx, f):
                return name
    if frames and "kallsyms" in frames[0]:
        return "kernel: other"
    if frames and "libdeflate" in frames[0]:
        return "libdeflate (inflate; at 180 px also the encoder's deflate)"
    return "other: " + (re.sub(r"^[0-9a-f]+ ", "", frames[0])[:50] if frames else "?")


def main():
    data, jobs, sample_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym,dso", "--comm", "xds"],
                         capture_output=True, text=True).stdout
    counts = collections.Counter()
    for block in out.split("\n\n"):
        lines = [l.strip() for l in block.strip().split("\n") if l.strip()]
        if lines:
            counts[classify(lines[1:])] += 1
    total = sum(counts.values())
    print(f"{total} samples, {total * sample_ms / jobs:.2f} ms of CPU per job")
    for name, n in counts.most_common(20):
        print(f"  {name:<50} {n * sample_ms / jobs:6.2f} ms  {100 * n / total:5.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
