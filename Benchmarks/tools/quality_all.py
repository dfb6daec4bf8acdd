#!/usr/bin/env python3
"""Runs icon-mask tools over the corpus and scores each output against the reference.

    quality_all.py [--sizes 58,180] [--filter lanczos3|area] [--corpus DIR] [--keep DIR]
                   [--json FILE] TOOL...

TOOL is a name=command pair or a plain command. A command with the
placeholders {in} {size} {out} is filled in (e.g. 'xds=xds mask {in} --size
{size} -o {out}'); otherwise IN SIZE OUT are appended (the anchors' form:
'bench/anchors/vips.sh'). With no TOOL, the three anchors next to this file.
Prints one row per tool and size: median / mean / worst of mae, max, psnr over
the corpus, and the number of files that failed or came out with the wrong size.
"""
import argparse
import glob
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The resolved interpreter: a `python3` on PATH may be a wrapper (a version-manager shim
# costs ~50 ms a start here). PYTHON overrides.
PY = os.environ.get("PYTHON") or sys.executable
# The float64 reference is the repository's own (scripts/reference_mask.py).
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import numpy as np  # noqa: E402
import quality  # noqa: E402
import reference_mask  # noqa: E402


def default_corpus():
    # Benchmarks/make_corpus.sh writes the generated corpus here (run.sh calls it).
    c = os.path.join(HERE, "..", "..", ".build", "bench", "corpus", "icons")
    if os.path.isdir(c):
        return os.path.normpath(c)
    raise SystemExit("corpus not found: give --corpus DIR")


def argv_for(cmd, src, size, out):
    if "{in}" in cmd:
        return shlex.split(cmd.format(**{"in": src, "size": size, "out": out}))
    return shlex.split(cmd) + [src, str(size), out]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tools", nargs="*")
    ap.add_argument("--sizes", default="58,180")
    ap.add_argument("--filter", choices=["lanczos3", "area"], default="lanczos3")
    ap.add_argument("--corpus")
    ap.add_argument("--keep", help="keep outputs in this folder")
    ap.add_argument("--json", help="write every per-file score here (JSON Lines)")
    a = ap.parse_args()
    corpus = a.corpus or default_corpus()
    files = sorted(glob.glob(os.path.join(corpus, "*.png")))
    tools = a.tools or [f"imagemagick={os.path.join(HERE, 'anchors', 'imagemagick.sh')}",
                        f"vips={os.path.join(HERE, 'anchors', 'vips.sh')}",
                        f"pillow={PY} {os.path.join(HERE, 'anchors', 'pillow.py')}"]
    tools = [t.split("=", 1) if "=" in t.split()[0] else (os.path.basename(t.split()[0]), t) for t in tools]
    outdir = a.keep or tempfile.mkdtemp()
    os.makedirs(outdir, exist_ok=True)
    jf = open(a.json, "w") if a.json else None
    print(f"corpus: {corpus} ({len(files)} files), reference filter: {a.filter}")
    print(f"{'tool':<12} {'size':>4}  {'mae med/mean/worst':>22}  {'max med/worst':>14}  {'psnr med/worst':>15}  "
          f"{'alpha_max worst':>15}  failed")
    for size in [int(s) for s in a.sizes.split(",")]:
        refs = {f: reference_mask.reference(f, size, a.filter) * 255.0 for f in files}
        for name, cmd in tools:
            rows, failed = [], 0
            for f in files:
                out = os.path.join(outdir, f"{name}-{size}-{os.path.basename(f)}")
                p = subprocess.run(argv_for(cmd, f, size, out), capture_output=True, text=True)
                if p.returncode != 0 or not os.path.exists(out):
                    failed += 1
                    print(f"  {name} {size} {os.path.basename(f)}: exit {p.returncode} {p.stderr.strip()[:200]}",
                          file=sys.stderr)
                    continue
                cand = quality.premul255(out)
                if cand.shape[:2] != (size, size):
                    failed += 1
                    continue
                res = quality.compare(cand, refs[f])
                rows.append(res)
                if jf:
                    jf.write(json.dumps({"tool": name, "size": size, "file": os.path.basename(f), **res}) + "\n")
            if not rows:
                print(f"{name:<12} {size:>4}  all failed")
                continue
            col = lambda k: [r[k] for r in rows]  # noqa: E731
            print(f"{name:<12} {size:>4}  {statistics.median(col('mae')):6.3f} /{np.mean(col('mae')):6.3f} /"
                  f"{max(col('mae')):6.3f}  {statistics.median(col('max')):6.1f} /{max(col('max')):6.1f}  "
                  f"{statistics.median(col('psnr')):6.2f} /{min(col('psnr')):6.2f}  "
                  f"{max(col('alpha_max')):15.1f}  {failed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
