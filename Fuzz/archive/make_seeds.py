#!/usr/bin/env python3
"""Writes the seed archives of Fuzz/archive/corpus (small: a few hundred bytes each), with
scripts/make_test_archive.py, scripts/make_hostile_zip.py (zip64 extra fields, true and hostile,
and entries sharing one member's data) and Python's tarfile (a pax header with a binary
SCHILY.xattr record, hdrcharset=BINARY as tarfile writes it)."""
import io, json, os, plistlib, subprocess, sys, tarfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
corpus = os.path.join(here, "corpus")
os.makedirs(corpus, exist_ok=True)
maker = os.path.join(root, "scripts", "make_test_archive.py")
hostile = os.path.join(root, "scripts", "make_hostile_zip.py")
value = {"identifier": "com.example.seed", "name": "Seed", "path": "a/b.txt"}


def make(name, spec, script=maker):
    spec["out"] = os.path.join(corpus, name)
    subprocess.run([sys.executable, script], input=json.dumps(spec).encode(), check=True)


make("finder.zip", {"entries": [
    {"name": "a/b.txt", "data": "b", "method": "stored"},
    {"name": "__MACOSX/a/._b.txt", "appledouble": {"value": value}}]})
make("beside.zip", {"entries": [{"name": "._c", "appledouble": {"value": value}, "method": "stored"}]})
make("bundle.textpack", {"entries": [
    {"name": "T.textbundle/info.json", "data": "{\"version\":2}", "method": "stored"},
    {"name": "T.textbundle/._text.md", "appledouble": {"value": value}}]})
make("mac.tar.gz", {"format": "tar.gz", "entries": [
    {"name": "./._x", "appledouble": {"value": value}}, {"name": "./x", "data": "x"}]})
# Issue 16: a self-extracting zip (bytes in front, offsets of the zip alone), NFD names (zip
# with and without the UTF-8 flag, pax), an empty attribute at offset 0 (Apple's bsdtar).
make("sfx.zip", {"front_hex": "7f454c46" * 16, "entries": [
    {"name": "__MACOSX/._s", "appledouble": {"value": value}, "method": "stored"}]})
make("nfd.zip", {"entries": [
    {"name": "._Cafe\u0301", "appledouble": {"value": value}, "method": "stored"},
    {"name": "._Cafe\u0301-raw", "appledouble": {"value": value}, "method": "stored", "utf8_flag": False}]})
make("nfd.tar", {"format": "tar", "entries": [{"name": "._Cafe\u0301", "appledouble": {"value": value}}]})
make("empty-attribute.zip", {"entries": [
    {"name": "._e", "appledouble": {"value": value, "empty_attribute": True}, "method": "stored"}]})
# Issue 24: zip64 extra fields (the true values, with a zip64 end record; sizes and offsets of
# 2^63 - 1 and 2^64 - 1, stored and deflated) and entries sharing one member's data.
plain = {"name": "d", "data": "d", "method": "stored"}
make("zip64.zip", {"zip64_end": True, "entries": [plain, {"name": "__MACOSX/._d", "appledouble": {"value": value},
     "zip64": {"uncompressed": True, "compressed": True, "local": True}}]}, hostile)
make("zip64-size.zip", {"entries": [plain, {"name": "__MACOSX/._d", "appledouble": {"value": value}, "method": "stored",
     "zip64": {"compressed": (1 << 63) - 1}}]}, hostile)
make("zip64-deflated-size.zip", {"entries": [{"name": "._d", "appledouble": {"value": value},
     "zip64": {"compressed": (1 << 64) - 1, "uncompressed": True}}]}, hostile)
make("zip64-offset.zip", {"front_hex": "7f454c46", "entries": [{"name": "._d", "appledouble": {"value": value},
     "method": "stored", "zip64": {"local": (1 << 63) - 2}}]}, hostile)
make("overlap.zip", {"entries": [{"name": "._a", "appledouble": {"value": value}, "copies": 3}]}, hostile)
with open(os.path.join(corpus, "pax-xattr.tar"), "wb") as f:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("doc.txt")
        info.size = 1
        info.pax_headers = {"SCHILY.xattr.user.x-document-source":
                            plistlib.dumps(value, fmt=plistlib.FMT_BINARY).decode("utf-8", "surrogateescape")}
        tar.addfile(info, io.BytesIO(b"d"))
    data = buffer.getvalue().rstrip(b"\0")  # end blocks are optional; keeps the seed small
    f.write(data + bytes(-len(data) % 512))
