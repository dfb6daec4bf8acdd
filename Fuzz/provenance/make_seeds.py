#!/usr/bin/env python3
"""Writes seed values for Fuzz/provenance: the first byte picks the kind (ProvenanceKind order:
x-document-source, quarantine, where-froms, downloaded-date, last-used-date, macos-provenance,
xdg, zone-identifier), the rest is the value, from the documented layouts (PROVENANCE.md)."""
import os, plistlib, struct

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(here, exist_ok=True)
seeds = {
    "document-source": (0, plistlib.dumps({"identifier": "com.example.app", "name": "Example"}, fmt=plistlib.FMT_BINARY)),
    "quarantine-safari": (1, b"0082;5fad2a2e;Safari;"),
    "quarantine-chrome": (1, b"0001;54208977;Google\\x20Chrome;6450771A-1F5B-4C05-9F2B-6D1C11D0E0C5"),
    "where-froms": (2, plistlib.dumps(["https://joe:pw@example.com/f.zip?t=1#x", "https://example.com/"], fmt=plistlib.FMT_BINARY)),
    "downloaded-date": (3, bytes.fromhex("62706c6973743030a10133") + bytes.fromhex("41c2aeb0d717b203") + bytes([8, 10]) + bytes(6) + bytes([1, 1]) + struct.pack(">QQQ", 2, 0, 19)),
    "last-used-date": (4, bytes.fromhex("2e2aad5f00000000dcfda40a00000000")),
    "macos-provenance": (5, bytes.fromhex("010200d5f3247e64bde945")),
    "xdg": (6, b"https://user:secret@codeload.github.com/x/zip/2014-11-12?token=abc"),
    "zone-crlf": (7, b"[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://example.com/\r\nHostUrl=https://example.com/f.zip\r\n"),
    "zone-utf16": (7, "\ufeff[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=about:internet\r\n".encode("utf-16-le")),
}
for name, (kind, value) in seeds.items():
    with open(os.path.join(here, name), "wb") as f:
        f.write(bytes([kind]) + value)
