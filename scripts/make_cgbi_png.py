#!/usr/bin/env python3
"""Writes an Apple CgBI PNG (what Xcode's `pngcrush -iphone` makes) from any PNG.

    python3 scripts/make_cgbi_png.py IN.png OUT.png

Test fixture tool (Python 3 + Pillow + numpy). The output, as INTEROP §4 describes it:
  * a `CgBI` chunk (data 50 00 20 06, valid CRC) before IHDR;
  * IHDR 8-bit colour type 6 (the input is converted to RGBA first, whatever its type);
  * pixels premultiplied by alpha, rounded: c' = (c * a + 127) // 255 (a = 0 gives 0), then
    stored in B, G, R, A order;
  * rows filtered byte-wise, the filter type cycling None, Sub, Up, Average, Paeth by row so a
    decoder's unfiltering is exercised on BGRA data;
  * the filtered data compressed as one raw DEFLATE stream (no zlib header, no Adler-32),
    split over two IDAT chunks, then IEND. All CRCs are real.

Un-premultiplying loses precision where alpha is small: a decoder that straightens with
c = (c' * 255 + a // 2) // a gets back c within floor(127.5 / a + 0.5), i.e. ±1 for a >= 128.
"""
import struct
import sys
import zlib

import numpy as np
from PIL import Image


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def premultiplied_bgra(rgba: np.ndarray) -> np.ndarray:
    """height x width x 4 uint8 straight RGBA -> premultiplied BGRA."""
    px = rgba.astype(np.uint32)
    a = px[:, :, 3:4]
    pm = (px[:, :, :3] * a + 127) // 255
    out = np.concatenate([pm[:, :, 2:3], pm[:, :, 1:2], pm[:, :, 0:1], a], axis=2)
    return out.astype(np.uint8)


def filter_rows(pixels: np.ndarray) -> bytes:
    """Filters each row byte-wise (stride 4), filter type = row index mod 5."""
    height, width, _ = pixels.shape
    rows = pixels.reshape(height, width * 4).astype(np.int16)
    out = bytearray()
    zero = np.zeros(width * 4, dtype=np.int16)
    for y in range(height):
        x = rows[y]
        b = rows[y - 1] if y > 0 else zero  # byte above
        a = np.concatenate([np.zeros(4, dtype=np.int16), x[:-4]])  # byte to the left
        c = np.concatenate([np.zeros(4, dtype=np.int16), b[:-4]])  # byte above-left
        kind = y % 5
        if kind == 0:
            f = x
        elif kind == 1:
            f = x - a
        elif kind == 2:
            f = x - b
        elif kind == 3:
            f = x - (a + b) // 2
        else:
            p = a + b - c
            pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
            pred = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
            f = x - pred
        out.append(kind)
        out += (f & 0xFF).astype(np.uint8).tobytes()
    return bytes(out)


def cgbi_png(image: Image.Image) -> bytes:
    rgba = np.asarray(image.convert("RGBA"), dtype=np.uint8)
    height, width, _ = rgba.shape
    data = filter_rows(premultiplied_bgra(rgba))
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate
    stream = compressor.compress(data) + compressor.flush()
    cut = len(stream) // 2
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"CgBI", bytes([0x50, 0x00, 0x20, 0x06]))
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
    out += chunk(b"IDAT", stream[:cut])
    out += chunk(b"IDAT", stream[cut:])
    out += chunk(b"IEND", b"")
    return out


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: make_cgbi_png.py IN.png OUT.png")
    with Image.open(sys.argv[1]) as image:
        result = cgbi_png(image)
    with open(sys.argv[2], "wb") as f:
        f.write(result)


if __name__ == "__main__":
    main()
