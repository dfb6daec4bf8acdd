#!/bin/sh
# make bench: `xds mask` side by side with ImageMagick, libvips and Pillow (whole process per
# icon, 1024 px inputs), in one run: speed, quality, peak memory, in-process decode throughput.
# Prints one table at the end (also written to $OUT/summary.md). See Benchmarks/README.md.
#
# Environment: CORPUS (a folder of 1024 px PNGs to use instead of the generated corpus),
# OUT (default .build/bench),
# RUNS (hyperfine runs per icon, default 10), ROUNDS (xds-bench rounds, default 7),
# FILTER (reference filter for quality, default lanczos3: the one IconMask implements),
# ICONS (comma list for the speed run; default time_icons.py's six), BATCH=1 (also time one
# shell loop over the whole corpus per tool).
# Everything it needs is in the repository: the tools in Benchmarks/tools, the corpus made by
# Benchmarks/make_corpus.sh from the project's own icon (nothing beside the clone is read).
set -eu
cd "$(dirname "$0")/.."

B=Benchmarks/tools
OUT=${OUT:-.build/bench}
RUNS=${RUNS:-10}
ROUNDS=${ROUNDS:-7}
FILTER=${FILTER:-lanczos3}
XDS=$(pwd)/.build/release/xds
BENCH=$(pwd)/.build/release/xds-bench
# The resolved interpreter: a `python3` on PATH may be a version-manager shim (~50 ms a start).
PY=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
export PYTHON=$PY

for x in "$XDS" "$BENCH"; do
  [ -x "$x" ] || { echo "bench: $x missing; run: swift build -c release --product $(basename "$x")" >&2; exit 66; }
done
rm -rf "$OUT"
mkdir -p "$OUT"
sh Benchmarks/make_corpus.sh "$OUT/corpus"
ICONDIR=${CORPUS:-$OUT/corpus/icons}
SYNTH=$OUT/corpus/synthetic
if [ -n "${CORPUS:-}" ] && [ -z "${ICONS:-}" ]; then
  ICONS=$(ls "$CORPUS" | grep '\.png$' | head -6 | paste -sd, -)
fi

XDS_CMD="xds=$XDS mask {in} --size {size} --shape circular -o {out}"
IM="imagemagick=$B/anchors/imagemagick.sh"
VIPS="vips=$B/anchors/vips.sh"
PIL="pillow=$PY $B/anchors/pillow.py"

T0=$(date +%s)
elapsed() { echo "   ($(( $(date +%s) - T0 )) s so far)"; }
echo "== machine: $(nproc) cores, $(uname -sr); $(date -u "+%Y-%m-%d %H:%M UTC"); load$(uptime | sed "s/.*load//")"
echo "== xds: $XDS ($("$XDS" --version))"

echo "== 1/5 speed: time_icons.py, whole process per icon (hyperfine, $RUNS runs)"
set -- --sizes 58,180 --runs "$RUNS" --extras --export "$OUT/time" --corpus "$ICONDIR"
if [ "${BATCH:-0}" = 1 ]; then set -- "$@" --batch; fi
if [ -n "${ICONS:-}" ]; then set -- "$@" --icons "$ICONS"; fi
"$PY" "$B/time_icons.py" "$@" "$XDS_CMD" "$IM" "$VIPS" "$PIL" | tee "$OUT/time.txt"
# xds's own start-up, and the default (continuous) shape, for the record.
icon=$ICONDIR/$(ls "$ICONDIR" | grep '\.png$' | head -1)
hyperfine -N --style none --warmup 3 --runs "$((RUNS * 3))" --export-json "$OUT/time/xds-extras.json" \
  -n "start:xds --version" "$XDS --version" \
  -n "xds mask 58 circular" "$XDS mask $icon --size 58 --shape circular -o $OUT/x.png" \
  -n "xds mask 58 continuous" "$XDS mask $icon --size 58 -o $OUT/x.png" \
  -n "xds mask 180 continuous" "$XDS mask $icon --size 180 -o $OUT/x.png" >/dev/null

elapsed
echo "== 2/5 quality: quality_all.py on the corpus, circular shape, reference filter $FILTER"
"$PY" "$B/quality_all.py" --sizes 58,180 --filter "$FILTER" --corpus "$ICONDIR" --json "$OUT/quality.jsonl" \
  "$XDS_CMD" "$IM" "$VIPS" "$PIL" | tee "$OUT/quality.txt"

elapsed
echo "== 3/5 quality: synthetic corpus (mask and stroke only)"
"$PY" "$B/quality_all.py" --sizes 29,58,87,180 --filter "$FILTER" --corpus "$SYNTH" \
  --json "$OUT/quality-synth.jsonl" "$XDS_CMD" "$IM" "$VIPS" "$PIL" | tee "$OUT/quality-synth.txt"

elapsed
echo "== 4/5 memory: peak RSS (/usr/bin/time -f %M), 1024 -> 58 px"
: > "$OUT/memory.txt"
for f in "$ICONDIR"/*.png; do
  /usr/bin/time -f "xds $(basename "$f") %M" -a -o "$OUT/memory.txt" \
    "$XDS" mask "$f" --size 58 --shape circular -o "$OUT/m.png"
done
/usr/bin/time -f "imagemagick $(basename "$icon") %M" -a -o "$OUT/memory.txt" "$B/anchors/imagemagick.sh" "$icon" 58 "$OUT/m.png"
/usr/bin/time -f "vips $(basename "$icon") %M" -a -o "$OUT/memory.txt" "$B/anchors/vips.sh" "$icon" 58 "$OUT/m.png"
/usr/bin/time -f "pillow $(basename "$icon") %M" -a -o "$OUT/memory.txt" "$PY" "$B/anchors/pillow.py" "$icon" 58 "$OUT/m.png"

elapsed
echo "== 5/5 in process: xds-bench (release), $ROUNDS rounds"
"$BENCH" --corpus "$ICONDIR" --rounds "$ROUNDS" | tee "$OUT/xds-bench.txt"

elapsed
echo "== icon: xds icon against a loopback HTTPS server (Benchmarks/icon_bench.sh)"
XDS="$XDS" OUT="$OUT" RUNS="$((RUNS * 3))" sh Benchmarks/icon_bench.sh

elapsed
echo "== start-up: xds show FILE vs a static hello-world, interleaved (Benchmarks/startup_bench.sh)"
XDS="$XDS" OUT="$OUT" sh Benchmarks/startup_bench.sh

elapsed
echo "== appinfo: xds appinfo from a bundle vs xds mask and ImageMagick (Benchmarks/appinfo_bench.sh)"
XDS="$XDS" OUT="$OUT" RUNS="$((RUNS * 2))" sh Benchmarks/appinfo_bench.sh

elapsed
echo "== instructions: callgrind counts of mask 58, 60@3x and appinfo per extra size (Benchmarks/instructions.sh)"
XDS="$XDS" OUT="$OUT" sh Benchmarks/instructions.sh

elapsed
echo "== tree: xds show -r over a 100 000-file tree, then thread scaling (Benchmarks/tree_bench.sh, tree_scaling.sh)"
XDS="$XDS" OUT="$OUT" sh Benchmarks/tree_bench.sh

elapsed
echo "== archive: xds show on a 10 000-member zip and tar.gz (Benchmarks/archive_bench.sh)"
XDS="$XDS" OUT="$OUT" sh Benchmarks/archive_bench.sh

elapsed
echo "== provenance: where -r vs show -r, strip -r vs remove -r, memory to a million files (Benchmarks/provenance_bench.sh)"
XDS="$XDS" OUT="$OUT" sh Benchmarks/provenance_bench.sh

elapsed
echo "== desktop: the GNOME Files extension vs xds where over 5 000 files (Benchmarks/desktop_bench.py)"
if /usr/bin/python3 -c 'import gi; gi.require_version("Nautilus", "4.0")' 2>/dev/null; then
  /usr/bin/python3 Benchmarks/desktop_bench.py "$XDS" 5000 5 | tee "$OUT/desktop-summary.md"
else
  echo "desktop: skipped: /usr/bin/python3 lacks the Nautilus 4.0 bindings (apt-get install python3-nautilus gir1.2-nautilus-4.0)"
fi

elapsed
echo
"$PY" Benchmarks/summary.py "$OUT" | tee "$OUT/summary.md"
cat "$OUT/icon-summary.md" | tee -a "$OUT/summary.md"
cat "$OUT/appinfo-summary.md" | tee -a "$OUT/summary.md"
cat "$OUT/startup-summary.md" | tee -a "$OUT/summary.md"
if [ -f "$OUT/instructions.md" ]; then cat "$OUT/instructions.md" | tee -a "$OUT/summary.md"; fi
