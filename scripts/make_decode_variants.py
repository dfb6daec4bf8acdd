#!/usr/bin/env python3
"""Writes PNG variants of one image for the decoder tests, each with Pillow's decoding of it.

    python3 scripts/make_decode_variants.py SOURCE.png OUT_FOLDER

For every variant NAME it writes OUT_FOLDER/NAME.png and OUT_FOLDER/NAME.rgba, the bytes of
Pillow's `Image.open(NAME.png).convert("RGBA").tobytes()`, which IconMaskTests compare with
PNGDecoder's output. The source gets an alpha channel from formulas first (a clear corner, a
half-clear band, a soft edge) so the alpha paths are exercised even for an opaque icon.

Variants: Pillow's own RGBA8, grey + alpha and palette + tRNS (8-bit and 4-bit) files; and,
from the small writer below (Pillow writes neither Adam7 nor 16-bit RGBA): RGBA8 with every row
filter, RGBA8 Adam7, grey + alpha Adam7, and RGBA16 with 8-bit samples x 257 (Pillow reads
16-bit by keeping the high byte; on those values that agrees exactly with any correct 16 to
8-bit reduction).
"""
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def filtered(kind, row, above, bpp):
    """One row filtered forwards (PNG §9): int arrays of bytes in, bytes out."""
    left = np.concatenate([np.zeros(bpp, np.int64), row[:-bpp]])
    corner = np.concatenate([np.zeros(bpp, np.int64), above[:-bpp]])
    if kind == 0:
        guess = np.zeros_like(row)
    elif kind == 1:
        guess = left
    elif kind == 2:
        guess = above
    elif kind == 3:
        guess = (left + above) // 2
    else:
        p = left + above - corner
        da, db, dc = np.abs(p - left), np.abs(p - above), np.abs(p - corner)
        guess = np.where((da <= db) & (da <= dc), left, np.where(db <= dc, above, corner))
    return bytes([kind]) + ((row - guess) & 0xFF).astype(np.uint8).tobytes()


def write_png(path, samples, depth, colour, interlaced):
    """samples: (h, w, channels) integers; rows filtered with types 0-4 in turn."""
    h, w, channels = samples.shape
    bpp = channels * depth // 8
    big_endian = samples.astype(">u2" if depth == 16 else np.uint8)
    passes = ADAM7 if interlaced else [(0, 0, 1, 1)]
    data, n = [], 0
    for x0, y0, dx, dy in passes:
        sub = big_endian[y0::dy, x0::dx]
        if sub.shape[0] == 0 or sub.shape[1] == 0:
            continue
        above = np.zeros(sub.shape[1] * bpp, np.int64)
        for line in sub:
            row = np.frombuffer(line.tobytes(), np.uint8).astype(np.int64)
            data.append(filtered(n % 5, row, above, bpp))
            above, n = row, n + 1
    header = struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 1 if interlaced else 0)
    stream = zlib.compress(b"".join(data), 6)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", stream[:len(stream) // 2])
                + chunk(b"IDAT", stream[len(stream) // 2:]) + chunk(b"IEND", b""))


def with_alpha(rgba):
    h, w, _ = rgba.shape
    y, x = np.mgrid[0:h, 0:w]
    alpha = np.full((h, w), 255, np.int64)
    alpha[x >= w * 3 // 4] = 128                                        # half-clear band
    alpha[(x < w // 4) & (y >= h * 3 // 4)] = 0                          # clear corner
    edge = (y < h // 8)
    alpha[edge] = (y[edge] * 255 // max(1, h // 8 - 1)).clip(0, 255)    # soft top edge
    out = rgba.astype(np.int64).copy()
    out[..., 3] = alpha
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 64
    source, folder = argv[1], argv[2]
    os.makedirs(folder, exist_ok=True)
    with Image.open(source) as im:
        rgba = with_alpha(np.asarray(im.convert("RGBA")))
    image = Image.fromarray(rgba.astype(np.uint8), "RGBA")
    grey_alpha = np.asarray(image.convert("LA")).astype(np.int64)

    def out(name):
        return os.path.join(folder, name + ".png")

    image.save(out("pillow-rgba8"))
    image.convert("LA").save(out("pillow-grey-alpha"))
    image.quantize(256).save(out("pillow-palette8"))
    image.quantize(16).save(out("pillow-palette4"), bits=4)
    write_png(out("rgba8-filters"), rgba, 8, 6, False)
    write_png(out("rgba8-adam7"), rgba, 8, 6, True)
    write_png(out("grey-alpha-adam7"), grey_alpha, 8, 4, True)
    write_png(out("rgba16"), rgba * 257, 16, 6, False)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".png"):
            with Image.open(os.path.join(folder, name)) as im:
                decoded = im.convert("RGBA").tobytes()
            with open(os.path.join(folder, name[:-4] + ".rgba"), "wb") as f:
                f.write(decoded)
            print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
