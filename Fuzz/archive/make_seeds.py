#!/usr/bin/env python3
"""Writes the seed archives of Fuzz/archive/corpus (small: a few hundred bytes each), with
scripts/make_test_archive.py and Python's tarfile (a pax header with a binary SCHILY.xattr record,
hdrcharset=BINARY as tarfile writes it)."""
import io, json, os, plistlib, subprocess, sys, tarfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
corpus = os.path.join(here, "corpus")
os.makedirs(corpus, exist_ok=True)
maker = os.path.join(root, "scripts", "make_test_archive.py")
value = {"identifier": "com.example.seed", "name": "Seed", "path": "a/b.txt"}


def make(name, spec):
    spec["out"] = os.path.join(corpus, name)
    subprocess.run([sys.executable, maker], input=json.dumps(spec).encode(), check=True)


make("finder.zip", {"entries": [
    {"name": "a/b.txt", "data": "b", "method": "stored"},
    {"name": "__MACOSX/a/._b.txt", "appledouble": {"value": value}}]})
make("beside.zip", {"entries": [{"name": "._c", "appledouble": {"value": value}, "method": "stored"}]})
make("bundle.textpack", {"entries": [
    {"name": "T.textbundle/info.json", "data": "{\"version\":2}", "method": "stored"},
    {"name": "T.textbundle/._text.md", "appledouble": {"value": value}}]})
make("mac.tar.gz", {"format": "tar.gz", "entries": [
    {"name": "./._x", "appledouble": {"value": value}}, {"name": "./x", "data": "x"}]})
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
