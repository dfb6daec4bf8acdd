#!/bin/sh
# Remakes Fuzz/icns/corpus with scripts/make_icns.py (Python 3 + Pillow for the small PNGs).
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import sys
from PIL import Image
d = sys.argv[1]
for n in (16, 32, 64):
    im = Image.new("RGBA", (n, n))
    im.putdata([((x * 17) % 256, (y * 29) % 256, 128, (x * y) % 256) for y in range(n) for x in range(n)])
    im.save(f"{d}/p{n}.png", optimize=True)
open(f"{d}/j.jp2", "wb").write(bytes([0, 0, 0, 12, 0x6A, 0x50, 0x20, 0x20, 13, 10, 0x87, 10]) + bytes(20))
open(f"{d}/v", "wb").write(bytes([0x42, 0xFC, 0, 0]))
PY
out=Fuzz/icns/corpus; mkdir -p "$out"
m="python3 scripts/make_icns.py"
$m "$out/png-three.icns" icp4="$tmp/p16.png" icp5="$tmp/p32.png" icp6="$tmp/p64.png"
$m --toc "$out/toc-retina.icns" ic11="$tmp/p32.png" ic12="$tmp/p64.png" icnV="$tmp/v"
$m "$out/legacy-pair.icns" is32=legacy s8mk=legacy il32=legacy l8mk=legacy icp4="$tmp/p16.png"
$m "$out/legacy-it32-argb.icns" it32=legacy ic04=legacy ic05=legacy
$m "$out/jp2.icns" ic10="$tmp/j.jp2" ic07="$tmp/p64.png"
python3 scripts/make_cgbi_png.py "$tmp/p32.png" "$tmp/c32.png"
$m "$out/cgbi.icns" ic11="$tmp/c32.png"
