#!/usr/bin/env python3
"""Builds zip and tar archives for xds's archive tests, seeds and benchmarks.

Usage: make_test_archive.py SPEC.json   (or the JSON on standard input)

SPEC: {"out": PATH, "format": "zip" | "tar" | "tar.gz",
       "entries": [ENTRY...], "many": {"count": N, "prefix": "f/", "tagged_every": K},
       "tar_format": "pax" | "gnu" (tar, default pax),
       "front_hex": HEX (zip: bytes in front, as a self-extracting zip has; offsets stay those of
                         the zip alone, as `cat stub a.zip` makes them),
       "cut": N (zip: only the first N bytes are written; negative: all but the last -N)}
   or {"out": PATH, "format": "tar.bz2" | "tar.gz", "entries": [ENTRY...], "zeros": N}:
       a decompression bomb, cheap to make: a GNU tar of the entries then a member `zeros.bin`
       of N zero bytes, as concatenated bzip2 streams (gzip members) of one small compressed
       block repeated (N = 64 GiB takes under a second and about 800 KB as bzip2).
ENTRY: {"name": TEXT} or {"name_hex": HEX} (exact bytes), plus one of
  "data": TEXT                      plain member contents
  "appledouble": {"value": {...}}   an AppleDouble file (INTEROP 3) whose x-document-source
        or {"value_hex": HEX}       attribute is that dict as a binary plist (or those bytes),
                                    with Finder info, com.apple.quarantine before it, another
                                    attribute after it and an empty resource fork around it;
                                    "empty_attribute": true adds an empty attribute at offset 0
                                    first, as Apple's bsdtar writes one
  "bomb": N                         N zero bytes deflated (zip), declared as 1000 bytes
and optionally "encrypted": true (zip: general-purpose bit 0 set, data left as it is),
"method": "stored" | "deflate" (zip, default deflate), "utf8_flag": false (zip: a UTF-8 name
without the UTF-8 flag, as old tools write it).

The zip writer is our own (not zipfile) so names can be any bytes and headers can lie.
"""
import bz2, gzip, io, json, plistlib, struct, sys, tarfile, zlib


def appledouble(value_bytes, empty_attribute=False):
    """An AppleDouble file as macOS writes `._NAME` (INTEROP 3.1-3.3), big-endian."""
    attrs = [(b"com.apple.quarantine", b"0081;5f000000;Safari;"),
             (b"x-document-source", value_bytes),
             (b"com.apple.metadata:kMDItemWhereFroms", plistlib.dumps(["https://example.com/"], fmt=plistlib.FMT_BINARY))]
    if empty_attribute:
        attrs.insert(0, (b"com.example.empty", b""))
    entries = b""
    at = 120
    names = []
    for name, value in attrs:
        at = (at + 3) & ~3
        n = name + b"\0"
        names.append((at, n, len(value)))
        at += 11 + len(n)
    data_start = (at + 3) & ~3
    table = bytearray(data_start - 120)
    values = b""
    offset = data_start
    for (entry_at, n, length), (_, value) in zip(names, attrs):
        rel = entry_at - 120
        # Apple's bsdtar writes an empty value as offset 0, length 0.
        table[rel:rel + 11 + len(n)] = struct.pack(">IIHB", offset if length else 0, length, 0, len(n)) + n
        values += value
        offset += length
    total = data_start + len(values)
    finder = b"TEXTttxt" + b"\x01\x00" + bytes(22)  # type, creator, flags: not all zero
    attr_header = b"ATTR" + struct.pack(">IIII", 0, total, data_start, len(values)) + bytes(12) + struct.pack(">HH", 0, len(attrs))
    info = finder + b"\0\0" + attr_header + bytes(table) + values
    assert 50 + len(info) == total
    fork = b"\x00\x00\x01\x00" + bytes(252) + b"This resource fork intentionally left blank   " + bytes(30)
    fork = fork[:286]
    header = struct.pack(">II", 0x00051607, 0x00020000) + b"Mac OS X        " + struct.pack(">H", 2)
    header += struct.pack(">III", 9, 50, len(info)) + struct.pack(">III", 2, total, len(fork))
    return header + info + fork


def entry_bytes(entry):
    if "appledouble" in entry:
        spec = entry["appledouble"]
        value = bytes.fromhex(spec["value_hex"]) if "value_hex" in spec else plistlib.dumps(spec["value"], fmt=plistlib.FMT_BINARY)
        return appledouble(value, spec.get("empty_attribute", False))
    return entry.get("data", "").encode()


def name_of(entry):
    return bytes.fromhex(entry["name_hex"]) if "name_hex" in entry else entry["name"].encode()


class ZipWriter:
    def __init__(self, out, front=b""):
        self.out, self.central, self.count = out, io.BytesIO(), 0
        self.out.write(front)
        self.front = len(front)  # offsets are written as if the zip started after these bytes

    def add(self, name, data=b"", method="deflate", encrypted=False, bomb=None, utf8_flag=True):
        try:
            name.decode("utf-8")
            flags = 0x800 if utf8_flag else 0  # the name is UTF-8
        except UnicodeDecodeError:
            flags = 0  # raw bytes, as old zip tools write them
        flags |= 1 if encrypted else 0
        if bomb is not None:
            compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
            chunk, parts, left = bytes(1 << 20), [], bomb
            crc = 0
            while left > 0:
                piece = chunk[:min(left, len(chunk))]
                crc = zlib.crc32(piece, crc)
                parts.append(compressor.compress(piece))
                left -= len(piece)
            parts.append(compressor.flush())
            body, size, code = b"".join(parts), 1000, 8  # the declared size lies
        elif method == "stored":
            body, size, code, crc = data, len(data), 0, zlib.crc32(data)
        else:
            compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
            body = compressor.compress(data) + compressor.flush()
            size, code, crc = len(data), 8, zlib.crc32(data)
        offset = self.out.tell() - self.front
        self.out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, code, 0, 0x21, crc, len(body), size, len(name), 0))
        self.out.write(name)
        self.out.write(body)
        self.central.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, flags, code, 0, 0x21, crc,
                                       len(body), size, len(name), 0, 0, 0, 0, 0o100644 << 16, offset))
        self.central.write(name)
        self.count += 1

    def close(self):
        start, directory = self.out.tell() - self.front, self.central.getvalue()
        self.out.write(directory)
        count = min(self.count, 0xFFFF)
        self.out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(directory), start, 0))


def many(spec):
    """count entries NAME (tiny), every tagged_every-th with a __MACOSX AppleDouble entry."""
    prefix, every = spec.get("prefix", "f"), spec.get("tagged_every", 0)
    value = plistlib.dumps({"identifier": "com.example.bench", "name": "Bench"}, fmt=plistlib.FMT_BINARY)
    blob = appledouble(value)
    for i in range(spec["count"]):
        name = f"{prefix}{i:07d}.txt".encode()
        yield name, b"x\n", False
        if every and i % every == 0:
            yield b"__MACOSX/" + name.rsplit(b"/", 1)[0] + b"/._" + name.rsplit(b"/", 1)[-1] if b"/" in name else b"__MACOSX/._" + name, blob, True


def tar_member(name, data, size=None):
    info = tarfile.TarInfo(name.decode("utf-8", "surrogateescape"))
    info.size, info.mode, info.mtime = len(data) if size is None else size, 0o644, 1700000000
    header = info.tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape")
    return header + data + bytes(-len(data) % 512) if size is None else header


def zero_bomb(spec):
    """Entries, then a member of spec["zeros"] zero bytes: see the module's doc."""
    size, fmt = spec["zeros"], spec["format"]
    if fmt == "tar.bz2":
        compress, chunk = (lambda data: bz2.compress(data, 9)), 4 << 20
    else:
        compress, chunk = (lambda data: gzip.compress(data, 9, mtime=0)), 16 << 20
    head = b"".join(tar_member(name_of(e), entry_bytes(e)) for e in spec.get("entries", []))
    head += tar_member(b"zeros.bin", b"", size)
    whole, rest = divmod(size, chunk)
    block = compress(bytes(chunk)) if whole else b""
    tail = bytes(rest) + bytes(-size % 512) + bytes(1024)
    with open(spec["out"], "wb") as f:
        f.write(compress(head))
        for _ in range(whole):
            f.write(block)
        f.write(compress(tail))


def main():
    spec = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
    fmt = spec.get("format", "zip")
    entries = spec.get("entries", [])
    if "zeros" in spec:
        zero_bomb(spec)
        return
    if fmt == "zip":
        with open(spec["out"], "wb") as f:
            writer = ZipWriter(f, bytes.fromhex(spec.get("front_hex", "")))
            for entry in entries:
                writer.add(name_of(entry), entry_bytes(entry), entry.get("method", "deflate"),
                           entry.get("encrypted", False), entry.get("bomb"), entry.get("utf8_flag", True))
            if "many" in spec:
                for name, data, _ in many(spec["many"]):
                    writer.add(name, data, "stored")
            writer.close()
            if "cut" in spec:
                cut = spec["cut"]
                f.truncate(cut if cut >= 0 else f.tell() + cut)
    else:
        mode = "w:gz" if fmt == "tar.gz" else "w"
        tar_format = tarfile.GNU_FORMAT if spec.get("tar_format") == "gnu" else tarfile.PAX_FORMAT
        with tarfile.open(spec["out"], mode, format=tar_format) as tar:
            def add(name, data):
                info = tarfile.TarInfo(name.decode("utf-8", "surrogateescape"))
                info.size, info.mode, info.mtime = len(data), 0o644, 1700000000
                tar.addfile(info, io.BytesIO(data))
            for entry in entries:
                add(name_of(entry), entry_bytes(entry))
            if "many" in spec:
                for name, data, is_blob in many(spec["many"]):
                    if is_blob:  # in a tar, the ._NAME entry sits beside the member
                        name = name.replace(b"__MACOSX/", b"", 1)
                    add(name, data)


if __name__ == "__main__":
    main()
