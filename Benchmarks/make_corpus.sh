#!/bin/sh
# Makes the benchmark corpus from what the repository ships, so `make bench` needs nothing
# beside the clone:
#   OUT/icons/      the project's 1024 px icon; its decode variants (palette 8 and 4 bit,
#                   grey+alpha, 16-bit, Adam7, every row filter: scripts/make_decode_variants.py);
#                   and 1024 px icons drawn here with Pillow (gradients, photos-like noise,
#                   text-like strokes, transparent corners), seeded so every run is the same
#   OUT/synthetic/  flat white and fully clear 1024 px images (the mask alone)
# Usage: make_corpus.sh OUT     (needs python3 with Pillow and numpy: make setup-test)
set -eu
out=$1
cd "$(dirname "$0")/.."
rm -rf "$out"; mkdir -p "$out/icons" "$out/synthetic"
cp img/icon-1024.png "$out/icons/icon-1024.png"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 scripts/make_decode_variants.py img/icon-1024.png "$tmp" >/dev/null
for f in "$tmp"/*.png; do
  name=$(basename "$f"); name=${name#pillow-}
  case $name in rgba8-adam7.png) name=adam7-rgba8.png ;; esac
  cp "$f" "$out/icons/$name"
done
python3 - "$out" <<'PY'
import sys
import numpy as np
from PIL import Image, ImageDraw, ImageFilter
out = sys.argv[1]
rng = np.random.default_rng(20261124)
for i in range(6):
    n = 1024
    y, x = np.mgrid[0:n, 0:n] / n
    c0, c1 = rng.integers(0, 256, 3), rng.integers(0, 256, 3)
    t = (x * rng.uniform(0.2, 1) + y * rng.uniform(0.2, 1)) / 2
    img = (c0 * (1 - t[..., None]) + c1 * t[..., None])
    img += rng.normal(0, 6 + 8 * i, (n, n, 3))          # texture, stronger in later icons
    rgba = np.dstack([np.clip(img, 0, 255), np.full((n, n), 255.0)]).astype(np.uint8)
    im = Image.fromarray(rgba, "RGBA")
    d = ImageDraw.Draw(im)
    for _ in range(12 + 6 * i):                           # shapes and text-like strokes
        x0, y0 = rng.integers(0, n - 64, 2)
        x1, y1 = x0 + rng.integers(16, 400), y0 + rng.integers(4, 300)
        d.rounded_rectangle([int(x0), int(y0), int(x1), int(y1)], radius=int(rng.integers(0, 40)),
                            fill=tuple(int(v) for v in rng.integers(0, 256, 4)))
    if i % 2:                                             # transparent corners and soft edges
        a = np.array(im)
        a[..., 3] = np.where((x - 0.5) ** 2 + (y - 0.5) ** 2 < 0.23, a[..., 3], 0)
        im = Image.fromarray(a, "RGBA").filter(ImageFilter.GaussianBlur(0.8))
    im.save(f"{out}/icons/drawn-{i}.png")
Image.new("RGBA", (1024, 1024), (255, 255, 255, 255)).save(f"{out}/synthetic/white-1024.png")
Image.new("RGBA", (1024, 1024), (0, 0, 0, 0)).save(f"{out}/synthetic/clear-1024.png")
PY
ls "$out/icons" | wc -l | sed 's/^/corpus: /; s/$/ icons/'
