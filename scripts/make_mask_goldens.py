#!/usr/bin/env python3
"""Writes the golden outputs for IconMaskTests (Tests/IconMaskTests/Golden/*.premul.rgba).

    python3 scripts/make_mask_goldens.py [--out Tests/IconMaskTests/Golden]

The input is a synthetic 160x128 RGBA image defined by integer formulas (the Swift test builds
the same one): gradients, a sawtooth, a transparent disc and a transparent corner whose hidden
colour is garish (so any fringe shows), and a half-transparent band. Non-square, so the centre
crop is exercised too.

Expected outputs, float64, for each shape at 29@1x, 29@2x, 58@1x, 180@1x and 60@3x:
  * resampling: scripts/reference_mask.py's resample_premultiplied (float64 Lanczos-3 on
    premultiplied alpha);
  * circular and none: reference_mask.py's own coverage (rounded_square_coverage) with our
    radius round_half_up(0.225 x size_pt) x scale and a stroke of `scale` px, composited by
    reference_mask.composite, as reference_mask.reference() does;
  * continuous: the same, with the coverage of Apple's continuous-corner outline (INTEROP §8:
    three cubics and two short lines per corner starting 1.52866483 r from the corner) computed
    independently of the Swift rasteriser: the corner curve is evaluated densely, its top edge
    y(x) interpolated, and each pixel's area integrated exactly in y with 256 samples in x
    (reference_mask.py's scheme).
Stored as premultiplied RGBA, round(value x 255), one byte a channel, row-major.
"""
import argparse
import math
import os
import sys
import tempfile

import numpy as np

CASES = [(29, 1), (29, 2), (58, 1), (180, 1), (60, 3)]
SHAPES = ["continuous", "circular", "none"]
EXT = 1.52866483
# (c1, c2, end, line-to or None), in multiples of r; (along the edge being left, along the next)
CORNER = [((1.08849323, 0), (0.86840689, 0), (0.66993427, 0.06549600), (0.63149399, 0.07491100)),
          ((0.37282392, 0.16905899), (0.16906013, 0.37282401), (0.07491100, 0.63149399), (0.06549600, 0.66993427)),
          ((0, 0.86840701), (0, 1.08849299), (0, 1.52866483), None)]


def synthetic_input():
    w, h = 160, 128
    a = np.zeros((h, w, 4), np.uint8)
    for y in range(h):
        for x in range(w):
            r, g, b = x * 255 // 159, y * 255 // 127, (x * 3 + y * 5) % 256
            dx, dy = x - 40, y - 30
            if dx * dx + dy * dy < 400:
                px = (0, 255, 0, 0)
            elif x >= 120:
                px = (r, g, b, 128)
            elif y >= 100 and x < 60:
                px = (255, 0, 255, 0)
            else:
                px = (r, g, b, 255)
            a[y, x] = px
    return a


def radius(pt, scale):
    return (225 * pt + 500) // 1000 * scale


def corner_profile(r):
    """Points (u, v) of one continuous corner, u = distance from the corner along the top edge,
    v = distance down from the top edge; v falls from EXT*r to 0 as u grows."""
    pts = [(EXT, 0.0)]
    t = np.linspace(0.0, 1.0, 20001)[:, None]
    for c1, c2, end, line in CORNER:
        p0 = np.array(pts[-1])
        p1, p2, p3 = np.array(c1), np.array(c2), np.array(end)
        b = (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3
        pts.extend(map(tuple, b[1:]))
        if line:
            pts.append(line)
    # In the top-left corner (leaving the left edge going up): a = distance up along the left
    # edge from the corner = v, b = distance along the top edge = u.
    a = np.array(pts) * r
    u, v = a[:, 1], a[:, 0]
    order = np.argsort(u)
    return u[order], v[order]


def continuous_coverage(size, lo, hi, rad, samples=256):
    side = hi - lo
    rad = min(rad, side / 2 / EXT) if rad > 0 else 0.0
    xs = (np.arange(size * samples) + 0.5) / samples
    top = np.full_like(xs, lo)
    if rad > 0:
        u, v = corner_profile(rad)
        ext = EXT * rad
        left = xs < lo + ext
        top[left] = lo + np.interp(xs[left] - lo, u, v)
        right = xs > hi - ext
        top[right] = lo + np.interp(hi - xs[right], u, v)
    bot = lo + hi - top
    inside = (xs >= lo) & (xs <= hi)
    rows = np.arange(size)[:, None]
    cov = np.clip(np.minimum(bot[None, :], rows + 1) - np.maximum(top[None, :], rows), 0, 1)
    cov[:, ~inside] = 0
    return cov.reshape(size, size, samples).mean(axis=2)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "Tests", "IconMaskTests", "Golden"))
    a = ap.parse_args()
    sys.path.insert(0, here)
    import reference_mask as rm
    from PIL import Image

    os.makedirs(a.out, exist_ok=True)
    src = os.path.join(tempfile.mkdtemp(), "input.png")
    Image.fromarray(synthetic_input(), "RGBA").save(src)
    rgba = rm.read_straight_rgba(src)
    for pt, scale in CASES:
        n = pt * scale
        img = rm.resample_premultiplied(rgba, n, "lanczos3")
        r = radius(pt, scale)
        h = scale / 2.0
        for shape in SHAPES:
            if shape == "continuous":
                cov = continuous_coverage(n, 0.0, float(n), r)
                cov_in = continuous_coverage(n, h, n - h, max(r - h, 0.0))
            else:
                rr = r if shape == "circular" else 0
                cov = rm.rounded_square_coverage(n, 0.0, float(n), rr)
                cov_in = rm.rounded_square_coverage(n, h, n - h, max(rr - h, 0.0))
            out = rm.composite(img, cov, cov_in)
            q = np.clip(np.floor(out * 255 + 0.5), 0, 255).astype(np.uint8)
            path = os.path.join(a.out, f"{shape}-{pt}@{scale}x.premul.rgba")
            with open(path, "wb") as f:
                f.write(q.tobytes())
            print(path, n, r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
