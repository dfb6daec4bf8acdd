#!/usr/bin/env python3
"""Reads what Benchmarks/run.sh left in OUT and prints one Markdown table with the targets.

    summary.py OUT

Speed: median over icons of hyperfine's per-icon median (ratios are ratios of those medians);
CPU: the same for hyperfine's mean user+system time, which a busy machine inflates less than wall time;
batch: ms per icon of one shell loop over the whole corpus. Quality: median MAE over the corpus
(premultiplied RGBA, 0-255) against reference_mask.py; synthetic: worst alpha error.
Memory: peak RSS in MiB (xds: worst over the corpus; anchors: one icon).
"""
import glob
import json
import os
import re
import statistics
import sys

TOOLS = ["xds", "imagemagick", "vips", "pillow"]


def load_speed(out):
    per = {}  # (size, tool) -> [median seconds per icon]
    cpu = {}  # (size, tool) -> [mean user+system seconds per icon]
    for path in glob.glob(os.path.join(out, "time", "icon-*.json")):
        size = int(os.path.basename(path).split("-")[1])
        with open(path) as f:
            for r in json.load(f)["results"]:
                per.setdefault((size, r["command"]), []).append(r["median"])
                cpu.setdefault((size, r["command"]), []).append(r["user"] + r["system"])
    batch = {}
    for path in glob.glob(os.path.join(out, "time", "batch-*.json")):
        size = int(os.path.basename(path)[6:-5])
        with open(path) as f:
            for r in json.load(f)["results"]:
                batch[(size, r["command"])] = r["median"]
    extras = {}
    for name in ("extras.json", "xds-extras.json"):
        p = os.path.join(out, "time", name)
        if os.path.exists(p):
            with open(p) as f:
                for r in json.load(f)["results"]:
                    extras[r["command"]] = r["median"]
    return per, cpu, batch, extras


def load_quality(path):
    q = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                q.setdefault((r["size"], r["tool"]), []).append(r)
    return q


def main():
    out = sys.argv[1]
    per, cpu, batch, extras = load_speed(out)
    quality = load_quality(os.path.join(out, "quality.jsonl"))
    synth = load_quality(os.path.join(out, "quality-synth.jsonl"))
    n_icons = len(glob.glob(os.path.join(out, "time", "icon-58-*.json")))
    n_files = 34
    bench_txt = open(os.path.join(out, "xds-bench.txt")).read() if os.path.exists(
        os.path.join(out, "xds-bench.txt")) else ""
    m = re.search(r"xds-bench: (\d+) files", bench_txt)
    if m:
        n_files = int(m.group(1))

    def med(size, tool):
        v = per.get((size, tool))
        return statistics.median(v) if v else float("nan")

    rows = []
    checks = []

    def row(label, vals, target="", ok=None):
        cells = [label] + vals + [target, "" if ok is None else ("yes" if ok else "**NO**")]
        rows.append("| " + " | ".join(cells) + " |")
        if ok is not None:
            checks.append(ok)

    ms = lambda x: f"{x * 1000:.1f}"  # noqa: E731
    for size in (58, 180):
        row(f"time {size} px, ms (median of {n_icons} icons)", [ms(med(size, t)) for t in TOOLS],
            "xds fastest", all(med(size, "xds") < med(size, t) for t in TOOLS[1:]))
        if batch:
            row(f"batch loop {size} px, ms/icon ({n_files} icons)",
                [ms(batch.get((size, t), float("nan")) / n_files) for t in TOOLS])
        ratios = [f"{med(size, 'xds') / med(size, t):.3f}" for t in TOOLS]
        ratios[0] = "1"
        target, ok = "", None
        if size == 58:
            target, ok = "xds/IM ≤ 0.30", med(58, "xds") / med(58, "imagemagick") <= 0.30
        else:
            target, ok = "xds/Pillow ≤ 0.25", med(180, "xds") / med(180, "pillow") <= 0.25
        row(f"ratio xds/tool at {size} px", ratios, target, ok)
        cmed = {t: statistics.median(cpu[(size, t)]) if cpu.get((size, t)) else float("nan") for t in TOOLS}
        row(f"CPU (user+sys) {size} px, ms (median of {n_icons} icons)", [ms(cmed[t]) for t in TOOLS])
        row(f"CPU ratio xds/tool at {size} px (less noisy)",
            ["1"] + [f"{cmed['xds'] / cmed[t]:.3f}" for t in TOOLS[1:]])
    for size in (58, 180):
        maes = {t: statistics.median([r["mae"] for r in quality.get((size, t), [])] or [float("nan")])
                for t in TOOLS}
        row(f"MAE {size} px (median over corpus)", [f"{maes[t]:.3f}" for t in TOOLS],
            "xds ≤ Pillow", maes["xds"] <= maes["pillow"])
        fails = {t: n_files - len(quality.get((size, t), [])) for t in TOOLS}
        if any(fails.values()):
            row(f"failed outputs {size} px", [str(fails[t]) for t in TOOLS], "0", fails["xds"] == 0)
    if synth:
        worst = {t: max((r["alpha_max"] for (s, tt), rs in synth.items() if tt == t for r in rs),
                        default=float("nan")) for t in TOOLS}
        row("synthetic: worst alpha error /255 (29-180 px)", [f"{worst[t]:.2f}" for t in TOOLS],
            "xds ≤ 2", worst["xds"] <= 2.0)
    mem = {}
    p = os.path.join(out, "memory.txt")
    if os.path.exists(p):
        for line in open(p):
            parts = line.split()
            if len(parts) == 3 and parts[2].isdigit():
                mem.setdefault(parts[0], []).append(int(parts[2]) / 1024.0)
        row("peak RSS 1024→58 px, MiB (xds: worst of corpus)",
            [f"{max(mem[t]):.1f}" if t in mem else "-" for t in TOOLS], "xds ≤ 30",
            max(mem.get("xds", [1e9])) <= 30)
    m = re.search(r"DECODE_MBPS=([\d.]+)", bench_txt)
    if m:
        row("decode in process (libdeflate), MB/s of RGBA8 pixels", [m.group(1), "", "", ""], "")
    m = re.search(r"DECODE_ZLIB_MBPS=([\d.]+)", bench_txt)
    if m:
        row("decode in process with zlib instead, MB/s", [m.group(1), "", "", ""], "")
    start = extras.get("start:xds --version")
    others = [extras.get(k) for k in ("start:convert -version", "start:vips --version",
                                      "start:python3 import PIL.Image")]
    if start:
        row("bare start-up, ms", [ms(start)] + [ms(x) if x else "-" for x in others], "")

    for name in ("xds mask 58 circular", "xds mask 58 continuous", "xds mask 180 continuous"):
        if name in extras:
            row(f"{name} (first corpus icon), ms", [ms(extras[name]), "", "", ""], "")
    print(f"| measure | {' | '.join(TOOLS)} | target | met |")
    print("|" + "---|" * (len(TOOLS) + 3))
    print("\n".join(rows))
    print()
    print(f"targets met: {sum(checks)}/{len(checks)}")
    if bench_txt:
        print()
        print("```")
        print(bench_txt.strip())
        print("```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
