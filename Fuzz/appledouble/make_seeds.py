#!/usr/bin/env python3
"""Writes seed AppleDouble files (INTEROP section 3 layout) into corpus/."""
import os, plistlib, struct

def apple_double(attrs, resource_fork=b""):
    entries_size = 0
    for name, _ in attrs:
        entries_size = (entries_size + 11 + len(name.encode()) + 1 + 3) & ~3
    data_start = 120 + entries_size
    data_length = sum(len(v) for _, v in attrs)
    total = data_start + data_length
    out = struct.pack(">II16sH", 0x00051607, 0x00020000, b"Mac OS X        ", 2)
    out += struct.pack(">III", 9, 50, total - 50)
    out += struct.pack(">III", 2, total, len(resource_fork))
    out += bytes(34)
    out += struct.pack(">IIIII12sHH", 0x41545452, 0, total, data_start, data_length, bytes(12), 0, len(attrs))
    offset = data_start
    for name, value in attrs:
        while len(out) % 4:
            out += b"\0"
        raw = name.encode() + b"\0"
        out += struct.pack(">IIHB", offset, len(value), 0, len(raw)) + raw
        offset += len(value)
    out += bytes(data_start - len(out))
    for _, value in attrs:
        out += value
    return out + resource_fork

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(here, exist_ok=True)
value = plistlib.dumps({"identifier": "com.example.app", "name": "Example"}, fmt=plistlib.FMT_BINARY)
seeds = {
    "one-attribute": apple_double([("x-document-source", value)]),
    "three-attributes": apple_double([("com.apple.quarantine", b"0081;5f;Safari;"),
                                      ("x-document-source", value),
                                      ("com.apple.lastuseddate#PS", bytes(range(16)))]),
    "libarchive-acl": apple_double([("com.apple.acl.text", b"a" * 134 + b"\0")]),
    # Finder info only: one entry (id 9, 32 bytes) right after the header.
    "finder-info-only": struct.pack(">II16sH", 0x00051607, 0x00020000, b"Mac OS X        ", 1)
                        + struct.pack(">III", 9, 38, 32) + b"TEXTttxt" + bytes(24),
    "with-resource-fork": apple_double([("x-document-source", value)], b"\0" * 256),
}
for name, data in seeds.items():
    with open(os.path.join(here, name + ".ad"), "wb") as f:
        f.write(data)
