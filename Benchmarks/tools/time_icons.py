#!/usr/bin/env python3
"""Times icon-mask tools side by side with hyperfine (whole process, start-up included).

    time_icons.py [--sizes 58,180] [--runs 10] [--icons a.png,b.png] [--corpus DIR]
                  [--batch] [--extras] [--export DIR] [TOOL...]

TOOL: name=command, as in quality_all.py ({in} {size} {out} placeholders, or
IN SIZE OUT appended). With no TOOL, the three anchors next to this file.
For every icon and size, one hyperfine call runs all tools (so they share the
machine's state); the summary prints each tool's median over icons of
hyperfine's per-icon median, with the min and max of those medians.
--batch also times one shell loop of each tool over the whole corpus
(ms per icon = loop time / number of files).
--extras also times decoding one 1024 PNG in each tool and each tool's bare
start-up (`convert -version`, `vips --version`, `python3 -c pass`,
`python3 -c "import PIL.Image"`).
Needs hyperfine (Debian: apt-get install hyperfine).
"""
import argparse
import glob
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The resolved interpreter: a `python3` on PATH may be a wrapper (a version-manager shim
# costs ~50 ms a start here). PYTHON overrides.
PY = os.environ.get("PYTHON") or sys.executable
# Likewise a `convert` early on PATH may be a wrapper; prefer Debian's real binary.
CONVERT = os.environ.get("CONVERT") or shutil.which("convert-im6.q16") or "convert"
DEFAULT_ICONS = ["icon-1024.png", "palette8.png", "rgba16.png", "adam7-rgba8.png", "grey-alpha.png", "drawn-0.png"]


def default_corpus():
    # Benchmarks/make_corpus.sh writes the generated corpus here (run.sh calls it).
    c = os.path.join(HERE, "..", "..", ".build", "bench", "corpus", "icons")
    if os.path.isdir(c):
        return os.path.normpath(c)
    raise SystemExit("corpus not found: give --corpus DIR")


def cmdline(cmd, src, size, out):
    if "{in}" in cmd:
        return cmd.format(**{"in": shlex.quote(src), "size": size, "out": shlex.quote(out)})
    return f"{cmd} {shlex.quote(src)} {size} {shlex.quote(out)}"


def hyperfine(named_cmds, runs, export, shell=False):
    args = ["hyperfine", "--style", "none", "--warmup", "1", "--runs", str(runs), "--export-json", export]
    if not shell:
        args.append("-N")
    for name, c in named_cmds:
        args += ["-n", name, c]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    with open(export) as f:
        return {r["command"]: r for r in json.load(f)["results"]}


def fmt(vals):
    return f"{statistics.median(vals) * 1000:8.1f} ms  ({min(vals) * 1000:.1f}-{max(vals) * 1000:.1f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tools", nargs="*")
    ap.add_argument("--sizes", default="58,180")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--icons", default=",".join(DEFAULT_ICONS))
    ap.add_argument("--corpus")
    ap.add_argument("--batch", action="store_true")
    ap.add_argument("--extras", action="store_true")
    ap.add_argument("--export", help="keep hyperfine's JSON files here")
    a = ap.parse_args()
    corpus = a.corpus or default_corpus()
    tools = a.tools or [f"imagemagick={os.path.join(HERE, 'anchors', 'imagemagick.sh')}",
                        f"vips={os.path.join(HERE, 'anchors', 'vips.sh')}",
                        f"pillow={PY} {os.path.join(HERE, 'anchors', 'pillow.py')}"]
    tools = [t.split("=", 1) if "=" in t.split()[0] else (os.path.basename(t.split()[0]), t) for t in tools]
    exp = a.export or tempfile.mkdtemp()
    os.makedirs(exp, exist_ok=True)
    out = tempfile.mkdtemp()
    icons = [os.path.join(corpus, i) for i in a.icons.split(",")]
    for size in [int(s) for s in a.sizes.split(",")]:
        per_tool = {n: [] for n, _ in tools}
        for icon in icons:
            cmds = [(n, cmdline(c, icon, size, os.path.join(out, f"{n}.png"))) for n, c in tools]
            res = hyperfine(cmds, a.runs, os.path.join(exp, f"icon-{size}-{os.path.basename(icon)}.json"))
            for n, _ in tools:
                per_tool[n].append(res[n]["median"])
        print(f"SIZE={size}: median over {len(icons)} icons of each icon's median ({a.runs} runs), min-max of those")
        for n, _ in tools:
            print(f"  {n:<14} {fmt(per_tool[n])}")
        if a.batch:
            files = sorted(glob.glob(os.path.join(corpus, "*.png")))
            cmds = []
            for n, c in tools:
                body = cmdline(c, "$f", size, os.path.join(out, "batch.png")).replace("'$f'", '"$f"')
                cmds.append((n, f"for f in {shlex.quote(corpus)}/*.png; do {body} || exit 1; done"))
            runs = max(3, a.runs // 3)
            res = hyperfine(cmds, runs, os.path.join(exp, f"batch-{size}.json"), shell=True)
            print(f"  batch loop over {len(files)} files ({runs} runs): ms per icon, median (min-max)")
            for n, _ in tools:
                t = [x / len(files) for x in res[n]["times"]]
                print(f"  {n:<14} {fmt(t)}")
    if a.extras:
        icon = icons[0]
        v = os.path.join(out, "x.v")
        cmds = [
            ("start:convert -version", f"{CONVERT} -version"),
            ("start:vips --version", "vips --version"),
            ("start:python3 -c pass", f"{PY} -c pass"),
            ("start:python3 import PIL.Image", f"{PY} -c 'import PIL.Image'"),
            ("decode:convert in.png rgba:/dev/null", f"{CONVERT} {shlex.quote(icon)} rgba:/dev/null"),
            ("decode:vips copy in.png out.v", f"vips copy {shlex.quote(icon)} {v}"),
            ("decode:vips avg in.png", f"vips avg {shlex.quote(icon)}"),
            ("decode:pillow open().load()", f"{PY} -c 'import sys,PIL.Image as I; I.open(sys.argv[1]).load()' "
                                            f"{shlex.quote(icon)}"),
        ]
        res = hyperfine(cmds, a.runs, os.path.join(exp, "extras.json"))
        print(f"start-up and decode of {os.path.basename(icon)}: median (min-max) of {a.runs} runs")
        for n, _ in cmds:
            print(f"  {n:<40} {fmt(res[n]['times'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
