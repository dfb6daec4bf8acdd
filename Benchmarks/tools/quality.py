#!/usr/bin/env python3
"""Compares a candidate icon PNG against the float64 reference (reference_mask.py).

    quality.py CANDIDATE.png INPUT.png SIZE [--filter lanczos3|area]
               [--no-stroke] [--stroke-width W] [--shape circular|none] [--json]

Both are compared as PREMULTIPLIED RGBA in 0..255 units (colour under
transparent pixels does not count). Prints one line:
    mae=<mean abs error, all 4 channels> max=<largest abs error> psnr=<dB>
    alpha_mae=<alpha only> alpha_max=<alpha only> edge_alpha_max=<alpha, outermost 2 px ring>
and `floor_mae`: the same MAE for the reference itself rounded to 8-bit
straight RGBA (what a perfect 8-bit writer would score).
The candidate must be SIZE x SIZE; it is decoded with Pillow (8-bit).
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from PIL import Image

# The float64 reference is the repository's own (scripts/reference_mask.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import reference_mask  # noqa: E402


def premul255(path):
    im = Image.open(path)
    im.load()
    a = np.asarray(im.convert("RGBA")).astype(np.float64)
    a[..., :3] *= a[..., 3:4] / 255.0
    return a


def quantised_ref(ref):
    al = ref[..., 3:4]
    with np.errstate(invalid="ignore", divide="ignore"):
        st = np.where(al > 0, ref[..., :3] / np.where(al > 0, al, 1), 0.0)
    q = np.floor(np.concatenate([st, al], 2) * 255 + 0.5)
    q[..., :3] *= q[..., 3:4] / 255.0
    return q


def compare(cand, ref255):
    d = np.abs(cand - ref255)
    mse = float((d ** 2).mean())
    size = d.shape[0]
    ring = np.zeros((size, size), bool)
    ring[:2, :] = ring[-2:, :] = ring[:, :2] = ring[:, -2:] = True
    return {
        "mae": float(d.mean()),
        "max": float(d.max()),
        "psnr": (10 * math.log10(255.0 ** 2 / mse)) if mse > 0 else float("inf"),
        "alpha_mae": float(d[..., 3].mean()),
        "alpha_max": float(d[..., 3].max()),
        "edge_alpha_max": float(d[..., 3][ring].max()),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidate")
    ap.add_argument("input")
    ap.add_argument("size", type=int)
    ap.add_argument("--filter", choices=["lanczos3", "area"], default="lanczos3")
    ap.add_argument("--shape", choices=["circular", "none"], default="circular")
    ap.add_argument("--stroke-width", type=float, default=1.0)
    ap.add_argument("--no-stroke", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    ref = reference_mask.reference(a.input, a.size, a.filter, a.shape, 0.0 if a.no_stroke else a.stroke_width) * 255.0
    cand = premul255(a.candidate)
    if cand.shape[:2] != (a.size, a.size):
        print(f"{a.candidate}: is {cand.shape[1]}x{cand.shape[0]}, expected {a.size}x{a.size}", file=sys.stderr)
        return 65
    res = compare(cand, ref)
    res["floor_mae"] = float(np.abs(quantised_ref(ref / 255.0) - ref).mean())
    if a.json:
        print(json.dumps({"candidate": a.candidate, "input": a.input, "size": a.size, **res}))
    else:
        print(" ".join(f"{k}={v:.4f}" for k, v in res.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
