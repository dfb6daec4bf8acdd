#!/usr/bin/env python3
"""Adds marks of where files came from (SPEC §6) to a tree make_tree.py built, for the
where/strip benchmarks.

    add_marks.py DIR [--fraction 0.1] [--zone-fraction 0.01] [--seed 2]

A --fraction of the files (chosen at random with --seed, independently of make_tree.py's
x-document-source ones) get `user.com.apple.quarantine` and `user.xdg.origin.url` (as Safari
through a share and wget --xattr leave them); a --zone-fraction get a `NAME:Zone.Identifier`
file beside them, as Explorer leaves on WSL. Every file also gets `user.mime_type`, which is
not a mark (curl --xattr writes it): the walk must list it and pass it by. Prints the number
of files with at least one mark (x-document-source included), the count `where -r` must find.
"""
import argparse
import os
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--fraction", type=float, default=0.1)
    ap.add_argument("--zone-fraction", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=2)
    a = ap.parse_args()
    files = []
    for folder, _, names in os.walk(a.dir):
        files += [os.path.join(folder, n) for n in names]
    files.sort()
    rng = random.Random(a.seed)
    marked = set(rng.sample(range(len(files)), int(round(len(files) * a.fraction))))
    zoned = set(rng.sample(range(len(files)), int(round(len(files) * a.zone_fraction))))
    with_marks = 0
    for i, path in enumerate(files):
        os.setxattr(path, "user.mime_type", b"text/plain")
        has = "user.x-document-source" in os.listxattr(path)
        if i in marked:
            os.setxattr(path, "user.com.apple.quarantine", b"0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F")
            os.setxattr(path, "user.xdg.origin.url", f"https://dl{i % 50}.example.com/f/{i}?token=t{i}".encode())
            has = True
        if i in zoned:
            with open(path + ":Zone.Identifier", "wb") as f:
                f.write(b"[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://example.org/x\r\n")
            has = True
        with_marks += has
    print(with_marks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
