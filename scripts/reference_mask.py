#!/usr/bin/env python3
"""The project's float64 reference for `xds mask` (what the mask tests and goldens compare to).

    python3 scripts/reference_mask.py INPUT.png SIZE [OUTPUT.png] [--filter lanczos3|area]
                                      [--shape circular|none] [--stroke-width W | --no-stroke]
                                      [--npy OUT.npy]

Everything is computed in float64 from the definitions, with no shortcut IconMask takes:

  * resize to fill SIZE x SIZE: scale by SIZE / min(width, height), crop the centre;
  * resample premultiplied RGBA in the file's own (sRGB-encoded) values, no linearisation.
    `lanczos3`: the Lanczos kernel with a = 3, widened by the reduction factor when shrinking
    (the antialiasing form of Pillow, libvips and ImageMagick), each output's weights divided by
    their sum (so the borders renormalise). `area`: the exact box average, each input pixel
    weighted by how much of it the output pixel covers;
  * shape: the square [0, SIZE]^2 with circular corners of radius floor(0.225 * SIZE + 0.5)
    (`circular`), or the plain square (`none`);
  * coverage of a pixel by a shape: exact in y, the mean of 256 columns per pixel in x;
  * stroke: a band W px wide (default 1) inside the outline, black at 10 % opacity, that is the
    shape minus the shape inset by W/2 (corner radius r - W/2);
  * compositing by area: with c_in the coverage of the inset shape and c_band = c_shape - c_in,
        colour' = (c_in + 0.9 c_band) * colour         (premultiplied)
        alpha'  =  c_in * alpha + c_band * (0.1 + 0.9 alpha)

Reading: Pillow for PNGs of up to 8 bits a sample; 16-bit PNGs are decoded here (zlib and the
row filters, non-interlaced) so no sample is narrowed to 8 bits first.

As a module: reference(path, size, filter, shape, stroke_width) returns the premultiplied RGBA
as a float64 array (size, size, 4) in 0..1; resample_premultiplied and rounded_square_coverage
are the pieces scripts/make_mask_goldens.py builds on.
"""
import argparse
import math
import struct
import sys
import zlib

import numpy as np

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# Reading ------------------------------------------------------------------------------------

def _sixteen_bit_rgba(data):
    """Straight RGBA in 0..1 from a non-interlaced 16-bit PNG (grey, grey+alpha, RGB, RGBA)."""
    pos, idat, header, trns = 8, [], None, None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"tRNS":
            trns = body
        pos += 12 + length
    width, height, _, colour, _, _, interlace = header
    if interlace:
        raise SystemExit("reference_mask.py: interlaced 16-bit PNGs are not supported")
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
    bpp = 2 * channels
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    rows = np.zeros((height, stride), np.int64)
    above = np.zeros(stride, np.int64)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + above) & 0xFF
        else:  # Sub, Average and Paeth depend on the bytes just decoded: go byte by byte.
            row = np.zeros(stride, np.int64)
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                up = above[i]
                corner = above[i - bpp] if i >= bpp else 0
                if kind == 1:
                    guess = left
                elif kind == 3:
                    guess = (left + up) // 2
                else:
                    p = left + up - corner
                    da, db, dc = abs(p - left), abs(p - up), abs(p - corner)
                    guess = left if da <= db and da <= dc else up if db <= dc else corner
                row[i] = (line[i] + guess) & 0xFF
        rows[y] = row
        above = row
    samples = (rows[:, 0::2] << 8 | rows[:, 1::2]).reshape(height, width, channels).astype(np.float64)
    if channels in (1, 2):
        grey = samples[..., :1]
        alpha = samples[..., 1:2] if channels == 2 else np.full_like(grey, 65535.0)
        rgba = np.concatenate([grey, grey, grey, alpha], axis=2)
    elif channels == 3:
        rgba = np.concatenate([samples, np.full_like(samples[..., :1], 65535.0)], axis=2)
    else:
        rgba = samples
    if trns is not None and channels in (1, 3):
        key = np.array(struct.unpack(">" + "H" * channels, trns), np.float64)
        hidden = np.all(samples == key, axis=2)
        rgba[hidden, 3] = 0.0
    return rgba / 65535.0


def read_straight_rgba(path):
    """The image as straight-alpha RGBA, float64 in 0..1, shape (height, width, 4)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != PNG_SIGNATURE:
        raise SystemExit(f"{path}: not a PNG file")
    if data[24] == 16:
        return _sixteen_bit_rgba(data)
    from PIL import Image
    with Image.open(path) as image:
        pixels = np.asarray(image.convert("RGBA"))
    return pixels.astype(np.float64) / 255.0


# Resampling ---------------------------------------------------------------------------------

def lanczos3(t):
    """sinc(t) sinc(t/3) inside |t| < 3, zero outside."""
    t = np.asarray(t, np.float64)
    value = np.sinc(t) * np.sinc(t / 3.0)
    value[np.abs(t) >= 3.0] = 0.0
    return value


def weight_matrix(inputs, outputs, scale, start, kind):
    """(outputs, inputs) weights: row i makes output sample i; `scale` is outputs per input,
    `start` the input coordinate where output 0 begins (the crop)."""
    matrix = np.zeros((outputs, inputs))
    for i in range(outputs):
        if kind == "area":
            left, right = i / scale + start, (i + 1) / scale + start
            first, last = max(0, int(math.floor(left))), min(inputs, int(math.ceil(right)))
            j = np.arange(first, last)
            matrix[i, j] = np.clip(np.minimum(j + 1, right) - np.maximum(j, left), 0, None)
        else:
            centre = (i + 0.5) / scale - 0.5 + start
            shrink = min(scale, 1.0)
            reach = 3.0 / shrink
            first = max(0, int(math.floor(centre - reach)))
            last = min(inputs, int(math.ceil(centre + reach)) + 1)
            j = np.arange(first, last)
            matrix[i, j] = lanczos3((j - centre) * shrink)
        matrix[i] /= matrix[i].sum()
    return matrix


def resample_premultiplied(straight, size, kind="lanczos3"):
    """Premultiplies `straight` and scales it to fill size x size (centre crop); returns the
    premultiplied result, clamped to 0 <= colour <= alpha <= 1."""
    height, width, _ = straight.shape
    premultiplied = straight.copy()
    premultiplied[..., :3] *= premultiplied[..., 3:4]
    scale = size / min(width, height)
    rows = weight_matrix(height, size, scale, (height - size / scale) / 2.0, kind)
    columns = weight_matrix(width, size, scale, (width - size / scale) / 2.0, kind)
    tall = np.einsum("ij,jkc->ikc", rows, premultiplied)
    out = np.einsum("kl,ilc->ikc", columns, tall)
    out[..., 3] = np.clip(out[..., 3], 0.0, 1.0)
    out[..., :3] = np.clip(out[..., :3], 0.0, out[..., 3:4])
    return out


# Shape and stroke ---------------------------------------------------------------------------

def corner_radius(size):
    """floor(0.225 size + 0.5): halves round up (180 gives 41)."""
    return math.floor(0.225 * size + 0.5)


def rounded_square_coverage(size, low, high, radius, columns=256):
    """For each pixel of a size x size grid, the area inside the square [low, high]^2 with
    circular corners of `radius`: exact in y, averaged over `columns` columns in x."""
    x = (np.arange(size * columns) + 0.5) / columns
    top = np.full_like(x, low)
    bottom = np.full_like(x, high)
    if radius > 0:
        for centre, side in ((low + radius, x < low + radius), (high - radius, x > high - radius)):
            d = np.clip(np.abs(x[side] - centre), 0, radius)
            drop = radius - np.sqrt(radius * radius - d * d)
            top[side] = low + drop
            bottom[side] = high - drop
    y = np.arange(size)[:, None]
    area = np.clip(np.minimum(bottom[None, :], y + 1) - np.maximum(top[None, :], y), 0, 1)
    area[:, (x < low) | (x > high)] = 0
    return area.reshape(size, size, columns).mean(axis=2)


def composite(image, shape, inset):
    """The area compositing of the module docstring: `shape` and `inset` are coverages."""
    band = shape - inset
    out = np.empty_like(image)
    out[..., :3] = (inset + 0.9 * band)[..., None] * image[..., :3]
    out[..., 3] = inset * image[..., 3] + band * (0.1 + 0.9 * image[..., 3])
    return out


def reference(path, size, kind="lanczos3", shape="circular", stroke_width=1.0):
    """Premultiplied RGBA float64 (size, size, 4) in 0..1: the mask of `path` at `size` px."""
    image = resample_premultiplied(read_straight_rgba(path), size, kind)
    radius = corner_radius(size) if shape == "circular" else 0
    outline = rounded_square_coverage(size, 0.0, float(size), radius)
    if stroke_width > 0:
        half = stroke_width / 2.0
        inset = rounded_square_coverage(size, half, size - half, max(radius - half, 0.0))
    else:
        inset = outline
    return composite(image, outline, inset)


def write_png8(premultiplied, path):
    """Writes straight 8-bit RGBA, rounded to nearest."""
    from PIL import Image
    alpha = premultiplied[..., 3:4]
    with np.errstate(invalid="ignore", divide="ignore"):
        colour = np.where(alpha > 0, premultiplied[..., :3] / np.where(alpha > 0, alpha, 1), 0.0)
    rgba = np.clip(np.floor(np.concatenate([colour, alpha], axis=2) * 255 + 0.5), 0, 255)
    Image.fromarray(rgba.astype(np.uint8), "RGBA").save(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("size", type=int)
    parser.add_argument("output", nargs="?", help="straight 8-bit RGBA PNG")
    parser.add_argument("--filter", choices=["lanczos3", "area"], default="lanczos3")
    parser.add_argument("--shape", choices=["circular", "none"], default="circular")
    parser.add_argument("--stroke-width", type=float, default=1.0)
    parser.add_argument("--no-stroke", action="store_true")
    parser.add_argument("--npy", help="the float64 premultiplied RGBA (0..1) as a .npy file")
    parser.add_argument("--f32", help="the same as little-endian float32, row-major, no header")
    args = parser.parse_args(argv)
    if not (args.output or args.npy or args.f32):
        print("reference_mask.py: nothing to write: give OUTPUT.png, --npy or --f32", file=sys.stderr)
        return 64
    out = reference(args.input, args.size, args.filter, args.shape,
                    0.0 if args.no_stroke else args.stroke_width)
    if args.npy:
        np.save(args.npy, out)
    if args.f32:
        out.astype("<f4").tofile(args.f32)
    if args.output:
        write_png8(out, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
