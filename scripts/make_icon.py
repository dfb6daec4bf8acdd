#!/usr/bin/env python3
"""Draws the project's own app icon (original artwork) at 29, 58, 87 and 1024 px into img/.

The icon is square and unmasked (readers mask it, SPEC §4): a diagonal blue gradient, a white
document sheet with a folded corner, and an orange tag on a string (the document's source).
Shapes are evaluated analytically with 8x8 supersampling per pixel, so every size is rendered
directly from the geometry rather than scaled from another. Needs numpy; writes PNGs with zlib.

    python3 scripts/make_icon.py [OUTDIR]
"""
import os
import struct
import sys
import zlib

import numpy as np

SIZES = (29, 58, 87, 1024)
SS = 8  # supersamples per axis


def png_bytes(rgba):
    h, w, _ = rgba.shape
    raw = b"".join(b"\x00" + rgba[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def rounded_rect(x, y, x0, y0, x1, y1, r):
    """Inside test for a rounded rectangle in unit coordinates."""
    cx = np.clip(x, x0 + r, x1 - r)
    cy = np.clip(y, y0 + r, y1 - r)
    return (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1) & ((x - cx) ** 2 + (y - cy) ** 2 <= r * r)


def render(n):
    # Sample positions in unit square coordinates (0..1), SS×SS per pixel.
    offs = (np.arange(SS) + 0.5) / SS
    px = (np.arange(n)[:, None] + offs[None, :]).reshape(-1) / n
    x, y = np.meshgrid(px, px)

    # Background: diagonal gradient from deep blue to teal.
    t = np.clip((x + y) / 2, 0, 1)[..., None]
    top = np.array([0.11, 0.23, 0.62])
    bottom = np.array([0.05, 0.62, 0.68])
    col = top * (1 - t) + bottom * t

    # Document sheet with a folded top-right corner.
    sx0, sy0, sx1, sy1, fold = 0.27, 0.18, 0.73, 0.84, 0.14
    sheet = rounded_rect(x, y, sx0, sy0, sx1, sy1, 0.03) & ((x - (sx1 - fold)) - (y - sy0) <= 0)
    shade = 0.97 - 0.06 * (y - sy0) / (sy1 - sy0)
    col = np.where(sheet[..., None], np.stack([shade, shade, shade * 1.01], -1).clip(0, 1), col)
    # The fold itself: a triangle in a slightly darker grey.
    foldtri = (x <= sx1) & (y >= sy0) & ((x - (sx1 - fold)) - (y - sy0) >= 0) & (x - (sx1 - fold) >= 0) \
        & (y - sy0 <= fold)
    col = np.where(foldtri[..., None], np.array([0.80, 0.84, 0.90]), col)

    # Text lines on the sheet.
    for i in range(4):
        ly = 0.40 + i * 0.085
        lx1 = 0.63 if i % 2 == 0 else 0.55
        line = rounded_rect(x, y, 0.34, ly, lx1, ly + 0.032, 0.016)
        col = np.where(line[..., None], np.array([0.62, 0.68, 0.78]), col)

    # Orange tag hanging off the sheet's lower-left: the "source" label.
    tag = rounded_rect(x, y, 0.14, 0.60, 0.44, 0.80, 0.05)
    col = np.where(tag[..., None], np.array([0.98, 0.55, 0.13]), col)
    hole = (x - 0.205) ** 2 + (y - 0.70) ** 2 <= 0.022 ** 2
    col = np.where(hole[..., None], np.array([0.99, 0.93, 0.83]), col)
    arrow = ((np.abs(y - 0.70) <= 0.016) & (x >= 0.26) & (x <= 0.37)) | \
        ((x >= 0.34) & (x <= 0.40) & (np.abs(y - 0.70) <= (0.40 - x) * 0.9))
    col = np.where(arrow[..., None], np.array([1.0, 1.0, 1.0]), col)

    # Box-filter the supersamples down to pixels.
    col = col.reshape(n, SS, n, SS, 3).mean(axis=(1, 3))
    rgb = np.clip(np.round(col * 255), 0, 255).astype(np.uint8)
    alpha = np.full((n, n, 1), 255, np.uint8)
    return np.concatenate([rgb, alpha], axis=-1)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "img")
    os.makedirs(out, exist_ok=True)
    for n in SIZES:
        name = "icon-%d.png" % n
        with open(os.path.join(out, name), "wb") as f:
            f.write(png_bytes(render(n)))
        print("wrote", os.path.join(out, name))


if __name__ == "__main__":
    main()
