#!/usr/bin/env python3
"""Scores unmasked icon sizes (what `xds appinfo` publishes, IconRenditions) against the float64
reference, beside Pillow's LANCZOS resize of the same input (the quality bound of issue 17).

    python3 scripts/renditions_quality.py INPUT.png --sizes 29,58,87,180
                                          [--candidate NAME=DIR ...] [--f32-dir DIR] [--json]

For each size N: the reference is reference_mask.py's `--shape none --no-stroke` result (float64
Lanczos-3 on premultiplied RGBA, fill and centre-crop); a candidate DIR holds `icon-N.png`
(the names `xds appinfo` writes); INPUT should be square (Pillow's resize does not crop). Scores are
on premultiplied RGBA in 0..255: MAE over all four
channels and the largest error. `floor` is the reference itself rounded to straight 8-bit (what a
perfect 8-bit writer scores); `pillow` is Pillow's `Image.resize(LANCZOS)` (which resizes RGBA
premultiplied). --f32-dir writes each reference as ref-N.f32 (little-endian float32, 0..1,
row-major), for the Swift tests. One line per size, or with --json one JSON object per size.
"""
import argparse
import json
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_mask  # noqa: E402


def premul255(rgba8):
    a = rgba8.astype(np.float64)
    a[..., :3] *= a[..., 3:4] / 255.0
    return a


def rounded(ref):
    alpha = ref[..., 3:4]
    with np.errstate(invalid="ignore", divide="ignore"):
        straight = np.where(alpha > 0, ref[..., :3] / np.where(alpha > 0, alpha, 1), 0.0)
    return np.clip(np.floor(np.concatenate([straight, alpha], 2) * 255 + 0.5), 0, 255)


def score(candidate255, ref255):
    d = np.abs(candidate255 - ref255)
    return {"mae": round(float(d.mean()), 4), "max": round(float(d.max()), 3)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("--sizes", required=True)
    parser.add_argument("--candidate", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--f32-dir")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    straight = reference_mask.read_straight_rgba(args.input)
    with Image.open(args.input) as source:
        source = source.convert("RGBA")
        for n in [int(s) for s in args.sizes.split(",")]:
            ref = reference_mask.resample_premultiplied(straight, n, "lanczos3")
            if args.f32_dir:
                ref.astype("<f4").tofile(os.path.join(args.f32_dir, f"ref-{n}.f32"))
            ref255 = ref * 255
            row = {"size": n, "floor": score(premul255(rounded(ref)), ref255),
                   "pillow": score(premul255(np.asarray(source.resize((n, n), Image.Resampling.LANCZOS))), ref255)}
            for spec in args.candidate:
                name, folder = spec.split("=", 1)
                with Image.open(os.path.join(folder, f"icon-{n}.png")) as c:
                    row[name] = score(premul255(np.asarray(c.convert("RGBA"))), ref255)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                print(f"{n:5} px  " + "  ".join(f"{k} mae {v['mae']:.4f} max {v['max']:.3f}"
                                               for k, v in row.items() if k != "size"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
