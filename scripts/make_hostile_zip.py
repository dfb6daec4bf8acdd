#!/usr/bin/env python3
"""Builds zips whose central directory lies, for xds's archive tests and fuzz seeds (issue 24).

Usage: make_hostile_zip.py SPEC.json   (or the JSON on standard input)

SPEC: {"out": PATH, "entries": [ENTRY...],
       "zip64_end": true (a zip64 end record and locator, the classic end record saturated),
       "front_hex": HEX (bytes in front, as a self-extracting zip has; offsets are the zip's alone)}
ENTRY: {"name": TEXT} or {"name_hex": HEX}, plus one of
  "data": TEXT                        plain member contents
  "appledouble": {"value": {...},     an AppleDouble file as scripts/make_test_archive.py writes it;
                  "pad_to": N}        "pad_to" grows its resource fork (zeros) to N bytes in all
and optionally
  "method": "stored" | "deflate"      (default deflate)
  "zip64": {"uncompressed": N,        these values go in the central entry's zip64 extra field
            "compressed": N,          (APPNOTE 4.5.3: the 32-bit fields say 0xFFFFFFFF), any
            "local": N}               subset, true or not: N up to 2^64 - 1 (true: the true value)
  "copies": N                         the central directory holds N entries for this member,
                                      all pointing at its one local header (overlapping data)
"""
import json, os, plistlib, struct, sys, zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_test_archive import appledouble, name_of  # noqa: E402

FULL = 0xFFFFFFFF


def entry_bytes(entry):
    if "appledouble" not in entry:
        return entry.get("data", "").encode()
    spec = entry["appledouble"]
    data = appledouble(plistlib.dumps(spec["value"], fmt=plistlib.FMT_BINARY))
    grow = spec.get("pad_to", 0) - len(data)
    if grow > 0:
        # The resource fork is the last entry: its length is at bytes 46-49 (entry 2 of 2).
        (length,) = struct.unpack(">I", data[46:50])
        data = data[:46] + struct.pack(">I", length + grow) + data[50:] + bytes(grow)
    return data


def main():
    spec = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
    central, count = b"", 0
    front = bytes.fromhex(spec.get("front_hex", ""))
    with open(spec["out"], "wb") as out:
        out.write(front)
        for entry in spec["entries"]:
            name, data = name_of(entry), entry_bytes(entry)
            if entry.get("method", "deflate") == "stored":
                body, code = data, 0
            else:
                compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
                body, code = compressor.compress(data) + compressor.flush(), 8
            crc, offset = zlib.crc32(data), out.tell() - len(front)
            sizes = {"uncompressed": len(data), "compressed": len(body), "local": offset}
            sizes.update({k: v for k, v in entry.get("zip64", {}).items() if v is not True})
            wide = [k for k in ("uncompressed", "compressed", "local") if k in entry.get("zip64", {})]
            small = {k: (FULL if k in wide else v) for k, v in sizes.items()}
            extra = b""
            if wide:
                fields = b"".join(struct.pack("<Q", sizes[k]) for k in wide)
                extra = struct.pack("<HH", 1, len(fields)) + fields
            local_extra = b""
            if "uncompressed" in wide or "compressed" in wide:  # the local header's zip64 field has both sizes
                local_extra = struct.pack("<HHQQ", 1, 16, sizes["uncompressed"], sizes["compressed"])
            flags = 0x800
            local_small = [FULL if k in wide else sizes[k] for k in ("compressed", "uncompressed")]
            out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, flags, code, 0, 0x21, crc,
                                  local_small[0], local_small[1], len(name), len(local_extra)))
            out.write(name + local_extra + body)
            record = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x032D, 45, flags, code, 0, 0x21, crc,
                                 small["compressed"], small["uncompressed"], len(name), len(extra), 0, 0, 0,
                                 0o100644 << 16, small["local"]) + name + extra
            copies = entry.get("copies", 1)
            central += record * copies
            count += copies
        start = out.tell() - len(front)
        out.write(central)
        if spec.get("zip64_end"):
            end64 = out.tell() - len(front)
            out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, len(central), start))
            out.write(struct.pack("<IIQI", 0x07064B50, 0, end64, 1))
            out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, FULL, FULL, 0))
        else:
            small_count = min(count, 0xFFFF)
            out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, small_count, small_count, len(central), start, 0))


if __name__ == "__main__":
    main()
