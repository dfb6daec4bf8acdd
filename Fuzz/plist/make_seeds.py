#!/usr/bin/env python3
"""Writes the seed corpus for the plist fuzzer into Fuzz/plist/corpus/ (run once; output committed)."""
import datetime, os, plistlib, struct

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
os.makedirs(here, exist_ok=True)

def put(name, data):
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)

xds = {"identifier": "com.appliedphasor.working-copy", "name": "Working Copy",
       "path": "repo/README.md", "appInfoURL": "https://workingcopy.app/appInfo.json"}
put("valid-minimal.bplist", plistlib.dumps(xds, fmt=plistlib.FMT_BINARY))
put("valid-minimal.xml", plistlib.dumps(xds, fmt=plistlib.FMT_XML))
rich = dict(xds, other={"n": -5, "big": 2**64 - 1, "r": 1.5, "ok": True,
                        "when": datetime.datetime(2020, 1, 2, 3, 4, 5, 678901),
                        "blob": b"\x00\xff", "list": [1, "two", [3.0]], "uid": plistlib.UID(3)},
            name="Wörking Cöpy 🎉 日本")
put("valid-rich.bplist", plistlib.dumps(rich, fmt=plistlib.FMT_BINARY))
rich_xml = dict(rich); rich_xml["other"] = dict(rich["other"]); del rich_xml["other"]["uid"]
put("valid-rich.xml", plistlib.dumps(rich_xml, fmt=plistlib.FMT_XML))
# The four keys as strings alone (read straight from the bytes, issue 35): UTF-16 with a
# surrogate pair, escapes, a string longer than 14 bytes, one string object shared by two keys.
put("four-fields.bplist", plistlib.dumps({"identifier": "org.example.shared", "name": "Wörking Cöpy 🎉 日本",
                                          "path": "a \"quoted\" \\ path\n\u2028" + "x" * 30,
                                          "appInfoURL": "org.example.shared"}, fmt=plistlib.FMT_BINARY))
put("wrong-types.bplist", plistlib.dumps({"name": 5, "identifier": [1], "path": b"x"}, fmt=plistlib.FMT_BINARY))
put("root-array.bplist", plistlib.dumps(["a", 1], fmt=plistlib.FMT_BINARY))

good = plistlib.dumps(xds, fmt=plistlib.FMT_BINARY)
put("truncated.bplist", good[:-7])
bad_sizes = bytearray(good); bad_sizes[-26] = 3
put("bad-offset-size.bplist", bytes(bad_sizes))

def bplist(objects, root=0, count=None, table=None):
    out = bytearray(b"bplist00"); offsets = []
    for o in objects:
        offsets.append(len(out)); out += o
    t = len(out)
    out += bytes(offsets)
    out += bytes(6) + bytes([1, 1]) + struct.pack(">QQQ", count if count is not None else len(objects), root, table if table is not None else t)
    return bytes(out)

put("cycle-array.bplist", bplist([bytes([0xA1, 0])]))
put("cycle-dicts.bplist", bplist([bytes([0xD1, 2, 1]), bytes([0xD1, 2, 0]), b"\x51k"]))
put("lone-surrogate.bplist", bplist([bytes([0xD1, 1, 2]), b"\x54name", bytes([0x61, 0xD8, 0x00])]))
put("absurd-count.bplist", bplist([bytes([0xD0])], count=2**63))
deep = "<array>" * 100 + "</array>" * 100
put("deep.xml", ('<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">' + deep + "</plist>").encode())
put("garbage.xml", b"<plist><dict><key>a</key><string>unterminated")
