#!/bin/sh
# `xds appinfo` (issue 10; part of make bench, also runs alone): publishing an app's icons from
# a bundle whose only icon is a 1024 px PNG (the project's own img/icon-1024.png), at the four
# default sizes 29, 58, 87 and 1024 px:
#
#   1. xds appinfo (one process: Info.plist, one decode, 4 resizes, 4 encodes, appInfo.json)
#      vs 4 separate `xds mask --shape none --no-stroke` runs (one decode each)
#      vs ImageMagick: one `convert` writing the 4 resizes, and 4 separate `convert` runs;
#   2. the cost of each extra size once the source is decoded: appinfo with --sizes 1024 vs the
#      4 default sizes vs 12 sizes (goal: ≤ 2 ms per extra size);
#   3. the same bundle with its icon as an Apple CgBI PNG (what Xcode ships), and as an .icns
#      with ic07 + ic10 elements (macOS).
#
# Environment: XDS (default .build/release/xds), OUT (.build/bench), RUNS (hyperfine runs, 20).
set -eu
cd "$(dirname "$0")/.."
XDS=${XDS:-$(pwd)/.build/release/xds}
OUT=${OUT:-.build/bench}
RUNS=${RUNS:-20}
PY=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
IM=$(command -v convert-im6.q16 || command -v magick || echo convert)
[ -x "$XDS" ] || { echo "appinfo bench: $XDS missing; run: swift build -c release --product xds" >&2; exit 66; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/xds-appinfo-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

src=$(pwd)/img/icon-1024.png
plist() {  # plist FILE ICON-KEY-XML
  cat > "$1" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>com.example.bench</string>
<key>CFBundleDisplayName</key><string>Bench</string>
$2
</dict></plist>
PLIST
}
mkdir -p "$work/Bench.app" "$work/CgBI.app" "$work/Mac.app/Contents/Resources"
plist "$work/Bench.app/Info.plist" '<key>CFBundleIconFiles</key><array><string>AppIcon</string></array>'
cp "$src" "$work/Bench.app/AppIcon.png"
plist "$work/CgBI.app/Info.plist" '<key>CFBundleIconFiles</key><array><string>AppIcon</string></array>'
"$PY" scripts/make_cgbi_png.py "$src" "$work/CgBI.app/AppIcon.png"
plist "$work/Mac.app/Contents/Info.plist" '<key>CFBundleIconFile</key><string>AppIcon</string>'
if command -v plistutil >/dev/null; then   # binary Info.plists, as Xcode writes them
  for p in "$work/Bench.app/Info.plist" "$work/CgBI.app/Info.plist" "$work/Mac.app/Contents/Info.plist"; do
    plistutil -i "$p" -o "$p.bin" -f bin && mv "$p.bin" "$p"
  done
fi
# ic07 must hold a 128 px PNG: resize the source for it.
"$XDS" mask "$src" --size 128 --shape none --no-stroke -o "$work/128.png"
"$PY" scripts/make_icns.py "$work/Mac.app/Contents/Resources/AppIcon.icns" ic07="$work/128.png" ic10="$src" is32=legacy >/dev/null

m="$XDS mask $src --shape none --no-stroke"
four_masks="$m --size 29 -o $work/m29.png; $m --size 58 -o $work/m58.png; $m --size 87 -o $work/m87.png; $m --size 1024 -o $work/m1024.png"
im_one="$IM $src \\( +clone -resize 29x29 -write $work/i29.png +delete \\) \\( +clone -resize 58x58 -write $work/i58.png +delete \\) \\( +clone -resize 87x87 -write $work/i87.png +delete \\) $work/i1024.png"
im_four="$IM $src -resize 29x29 $work/j29.png; $IM $src -resize 58x58 $work/j58.png; $IM $src -resize 87x87 $work/j87.png; $IM $src $work/j1024.png"
twelve=1024,29,58,87,40,60,76,80,120,152,167,180

echo "== appinfo: $XDS; $(nproc) cores; load$(uptime | sed 's/.*load//')"
"$XDS" appinfo "$work/Bench.app" -o "$work/site" > /dev/null 2>&1
echo "== 1/3 the 4 default sizes from one 1024 px icon"
hyperfine -N --style basic --warmup 3 --runs "$RUNS" --export-json "$OUT/appinfo-sizes.json" \
  -n "xds appinfo (4 sizes)" "$XDS appinfo $work/Bench.app -o $work/site" \
  -n "4 x xds mask --shape none --no-stroke" "sh -c '$four_masks'" \
  -n "ImageMagick: one convert, 4 -write" "sh -c '$im_one'" \
  -n "ImageMagick: 4 convert runs" "sh -c '$im_four'"

echo "== 2/3 per extra size (the source decoded once)"
hyperfine -N --style basic --warmup 3 --runs "$RUNS" --export-json "$OUT/appinfo-extra.json" \
  -n "xds appinfo --sizes 1024" "$XDS appinfo $work/Bench.app -o $work/s1 --sizes 1024" \
  -n "xds appinfo --sizes 1024,29,58,87" "$XDS appinfo $work/Bench.app -o $work/s4 --sizes 1024,29,58,87" \
  -n "xds appinfo --sizes (12 sizes)" "$XDS appinfo $work/Bench.app -o $work/s12 --sizes $twelve" \
  -n "xds appinfo --sizes 29" "$XDS appinfo $work/Bench.app -o $work/t1 --sizes 29" \
  -n "xds appinfo --sizes 29,58,87" "$XDS appinfo $work/Bench.app -o $work/t3 --sizes 29,58,87"

echo "== 3/3 CgBI PNG and .icns sources"
hyperfine -N --style basic --warmup 3 --runs "$RUNS" --export-json "$OUT/appinfo-formats.json" \
  -n "xds appinfo PNG (4 sizes)" "$XDS appinfo $work/Bench.app -o $work/f1" \
  -n "xds appinfo CgBI (4 sizes)" "$XDS appinfo $work/CgBI.app -o $work/f2" \
  -n "xds appinfo icns ic07+ic10 (4 sizes)" "$XDS appinfo $work/Mac.app -o $work/f3"

"$PY" - "$OUT" <<'PYEOF' | tee "$OUT/appinfo-summary.md"
# Wall-time medians, and CPU (user + system, mean): on a shared machine the CPU figure is the
# steadier one.
import json, sys, os
out = sys.argv[1]
med, cpu = {}, {}
for name in ("appinfo-sizes", "appinfo-extra", "appinfo-formats"):
    for r in json.load(open(os.path.join(out, name + ".json")))["results"]:
        med[r["command"]] = r["median"] * 1000
        cpu[r["command"]] = (r["user"] + r["system"]) * 1000
a = med["xds appinfo (4 sizes)"]
print("| xds appinfo | wall (median) | CPU (user+sys) |")
print("|---|---|---|")
for k in ("xds appinfo (4 sizes)", "4 x xds mask --shape none --no-stroke", "ImageMagick: one convert, 4 -write", "ImageMagick: 4 convert runs"):
    print(f"| {k} | {med[k]:.1f} ms ({med[k] / a:.2f}× appinfo) | {cpu[k]:.1f} ms |")
def extra(label, small, big, count):
    print(f"| {label}: per extra size | {(med[big] - med[small]) / count:.2f} ms ({med[small]:.1f} → {med[big]:.1f}) "
          f"| {(cpu[big] - cpu[small]) / count:.2f} ms ({cpu[small]:.1f} → {cpu[big]:.1f}) |")
extra("--sizes 1024 → 1024,29,58,87", "xds appinfo --sizes 1024", "xds appinfo --sizes 1024,29,58,87", 3)
extra("4 → 12 sizes (+40…180 px)", "xds appinfo --sizes 1024,29,58,87", "xds appinfo --sizes (12 sizes)", 8)
extra("--sizes 29 → 29,58,87", "xds appinfo --sizes 29", "xds appinfo --sizes 29,58,87", 2)
for k in ("xds appinfo PNG (4 sizes)", "xds appinfo CgBI (4 sizes)", "xds appinfo icns ic07+ic10 (4 sizes)"):
    print(f"| {k} | {med[k]:.1f} ms | {cpu[k]:.1f} ms |")
PYEOF
