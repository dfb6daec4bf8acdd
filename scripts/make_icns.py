#!/usr/bin/env python3
"""Assembles a macOS .icns file from parts (INTEROP §5), for tests and fuzz seeds.

    python3 scripts/make_icns.py [--toc] OUT.icns TYPE=PATH [TYPE=PATH ...]

Each TYPE=PATH becomes one element, in the order given. TYPE is the 4-character OSType
(quote `TOC ` and `ICN#` in the shell). PATH is a file whose bytes become the element's data
as they are (a PNG for ic07-ic14/icp4-icp6, or anything else: a JPEG 2000 file, junk), or the
word `legacy` for the raw older types, which writes a syntactically valid element of the right
size with arbitrary pixels:
  is32/il32/ih32/it32  RLE RGB (16/32/48/128 px; it32 with its 4 leading zero bytes),
  s8mk/l8mk/h8mk/t8mk  8-bit alpha masks, uncompressed (16/32/48/128 px),
  ic04/ic05            "ARGB" + RLE A, R, G, B (16/32 px).
--toc writes a `TOC ` element first listing every other element's type and length, as
iconutil does.
Only Python 3's standard library is needed.
"""
import struct
import sys

LEGACY_RLE = {"is32": 16, "il32": 32, "ih32": 48, "it32": 128}
MASKS = {"s8mk": 16, "l8mk": 32, "h8mk": 48, "t8mk": 128}
ARGB = {"ic04": 16, "ic05": 32}


def rle(channel: bytes) -> bytes:
    """Apple's icns RLE: 0x00-0x7F = copy n+1 literal bytes, 0x80-0xFF = repeat next byte n-125 times."""
    out = bytearray()
    i = 0
    while i < len(channel):
        run = 1
        while i + run < len(channel) and run < 130 and channel[i + run] == channel[i]:
            run += 1
        if run >= 3:
            out += bytes([run + 125, channel[i]])
            i += run
        else:
            start = i
            while i < len(channel) and i - start < 128:
                if i + 2 < len(channel) and channel[i] == channel[i + 1] == channel[i + 2]:
                    break
                i += 1
            out += bytes([i - start - 1]) + channel[start:i]
    return bytes(out)


def channel(n: int, seed: int) -> bytes:
    """n x n bytes of a pattern: runs and literals both occur."""
    return bytes(((x // 4) * 16 + y * seed) & 0xFF for y in range(n) for x in range(n))


def legacy(kind: str) -> bytes:
    if kind in LEGACY_RLE:
        n = LEGACY_RLE[kind]
        data = b"".join(rle(channel(n, s)) for s in (1, 3, 7))
        return (b"\0\0\0\0" + data) if kind == "it32" else data
    if kind in MASKS:
        return channel(MASKS[kind], 5)
    if kind in ARGB:
        n = ARGB[kind]
        return b"ARGB" + b"".join(rle(channel(n, s)) for s in (0, 1, 3, 7))
    sys.exit(f"make_icns.py: no legacy encoding for {kind!r}")


def element(kind: str, data: bytes) -> bytes:
    code = kind.encode("latin-1")
    if len(code) != 4:
        sys.exit(f"make_icns.py: type {kind!r} is not 4 characters")
    return code + struct.pack(">I", 8 + len(data)) + data


def main() -> None:
    args = sys.argv[1:]
    toc = False
    if args and args[0] == "--toc":
        toc = True
        args = args[1:]
    if len(args) < 2:
        sys.exit("usage: make_icns.py [--toc] OUT.icns TYPE=PATH [TYPE=PATH ...]")
    parts = []
    for spec in args[1:]:
        kind, sep, path = spec.partition("=")
        if not sep:
            sys.exit(f"make_icns.py: {spec!r} is not TYPE=PATH")
        if path == "legacy":
            data = legacy(kind)
        else:
            with open(path, "rb") as f:
                data = f.read()
        parts.append(element(kind, data))
    if toc:
        listing = b"".join(p[:8] for p in parts)
        parts.insert(0, element("TOC ", listing))
    body = b"".join(parts)
    with open(args[0], "wb") as f:
        f.write(b"icns" + struct.pack(">I", 8 + len(body)) + body)


if __name__ == "__main__":
    main()
