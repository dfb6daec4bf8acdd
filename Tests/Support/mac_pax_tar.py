#!/usr/bin/env python3
"""A pax tar as macOS bsdtar (libarchive) writes it, for xds's `strip --mac-metadata` tests.

Usage: mac_pax_tar.py build OUT.tar
       mac_pax_tar.py edges OUT.tar     (e.txt: LIBARCHIVE.xattr. records with a SCHILY twin, a
                                         value that is not base64, a name holding `=` and one
                                         holding an escaped space)
       mac_pax_tar.py members ARCHIVE.tar   (one JSON line per member: name, the hex of its
                                              ustar header block and of its data; pax headers
                                              are not members)

What `build` writes, as libarchive's archive_write_set_format_pax.c writes on a Mac (an `x`
header before a member that needs one, each record `LENGTH KEYWORD=VALUE\\n`):
  rel/             a folder: LIBARCHIVE.creationtime, SCHILY.dev, SCHILY.ino, SCHILY.nlink
  rel/._a.txt      the AppleDouble entry copyfile(3) makes (Finder info only), with its own
                   pax header (LIBARCHIVE.creationtime)
  rel/a.txt        LIBARCHIVE.creationtime, SCHILY.dev/ino/nlink, SCHILY.fflags, then per
                   attribute both spellings: LIBARCHIVE.xattr.NAME (NAME URL-encoded, value
                   base64 without padding) and SCHILY.xattr.NAME (value raw) for
                   com.apple.provenance, com.apple.quarantine (a mark) and
                   com.apple.FinderInfo (binary); LIBARCHIVE.xattr.user.keep alone (its
                   SCHILY twin missing, as when a writer is told to write only libarchive's)
  rel/b.txt        a plain ustar member, no pax header
  rel/c.txt        a pax header GNU tar reads (mtime, SCHILY.xattr.user.other)
  rel/.DS_Store    Finder's file
The ustar headers are POSIX's (magic "ustar\\0", version "00").
"""
import base64, json, struct, sys, urllib.parse


def octal(value, width):
    return ("%0*o" % (width - 1, value)).encode() + b"\0"


def ustar(name, size=0, kind=b"0", mode=0o644, mtime=1700000000):
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = octal(mode, 8)
    h[108:116] = octal(501, 8)
    h[116:124] = octal(20, 8)
    h[124:136] = octal(size, 12)
    h[136:148] = octal(mtime, 12)
    h[148:156] = b" " * 8
    h[156:157] = kind
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[265:265 + 5] = b"alice"
    h[297:297 + 5] = b"staff"
    h[148:156] = ("%06o" % sum(h)).encode() + b"\0 "
    return bytes(h)


def padded(data):
    return data + bytes(-len(data) % 512)


def record(keyword, value):
    rest = len(keyword) + len(value) + 3
    length = rest + 1
    while len(str(length)) + rest != length:
        length += 1
    return str(length).encode() + b" " + keyword + b"=" + value + b"\n"


def pax(name, records):
    data = b"".join(record(k, v) for k, v in records)
    # libarchive names the header after the member: DIR/PaxHeader/NAME.
    head, _, tail = name.rstrip(b"/").rpartition(b"/")
    pax_name = (head + b"/" if head else b"") + b"PaxHeader/" + tail
    return ustar(pax_name[:99], len(data), b"x") + padded(data)


def both(name, value):
    """The two spellings libarchive writes for one extended attribute."""
    encoded = urllib.parse.quote(name, safe="").encode()
    return [(b"LIBARCHIVE.xattr." + encoded, base64.b64encode(value).rstrip(b"=")),
            (b"SCHILY.xattr." + name.encode(), value)]


def member(name, data=b"", kind=b"0", mode=0o644, records=None):
    out = pax(name, records) if records else b""
    return out + ustar(name, len(data), kind, mode) + padded(data)


def build(out):
    mac = [(b"LIBARCHIVE.creationtime", b"1699999999"), (b"SCHILY.dev", b"16777233"),
           (b"SCHILY.ino", b"12345678"), (b"SCHILY.nlink", b"1")]
    finder = b"TEXTttxt" + b"\x01\x00" + bytes(22)
    appledouble = (struct.pack(">II", 0x00051607, 0x00020000) + bytes(16) + struct.pack(">H", 1)
                   + struct.pack(">III", 9, 38, 32) + finder)
    a = list(mac) + [(b"SCHILY.fflags", b"hidden")]
    a += both("com.apple.provenance", b"\x01\x02\x00\x00\x8a\x3f\x11\x22\x33\x44\x55")
    a += both("com.apple.quarantine", b"0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F")
    a += both("com.apple.FinderInfo", finder)
    a += [(b"LIBARCHIVE.xattr.user.keep", base64.b64encode(b"kept value").rstrip(b"="))]
    tar = member(b"rel/", kind=b"5", mode=0o755, records=mac)
    tar += member(b"rel/._a.txt", appledouble, records=[(b"LIBARCHIVE.creationtime", b"1699999999")])
    tar += member(b"rel/a.txt", b"hello from a Mac\n", records=a)
    tar += member(b"rel/b.txt", b"plain ustar\n")
    tar += member(b"rel/c.txt", b"gnu tar reads this\n",
                  records=[(b"mtime", b"1700000000.5"), (b"SCHILY.xattr.user.other", b"other value")])
    tar += member(b"rel/.DS_Store", b"\0\0\0\1Bud1" + bytes(20))
    tar += bytes(1024)
    with open(out, "wb") as f:
        f.write(padded(tar) if len(tar) % 10240 == 0 else tar + bytes(-len(tar) % 10240))


def edges(out):
    records = both("user.twin", b"same")
    records += [(b"LIBARCHIVE.xattr.user.bad", b"!!not base64!!"),
                (b"LIBARCHIVE.xattr.user.a%3Db", base64.b64encode(b"x").rstrip(b"=")),
                (b"LIBARCHIVE.xattr.user.sp%20ace", base64.b64encode(b"spaced").rstrip(b"="))]
    tar = member(b"e.txt", b"edges\n", records=records) + bytes(1024)
    with open(out, "wb") as f:
        f.write(tar + bytes(-len(tar) % 10240))


def members(path):
    """Each member's ustar header block and data, as stored (pax headers skipped)."""
    data = open(path, "rb").read()
    at = 0
    while at + 512 <= len(data):
        h = data[at:at + 512]
        if h == bytes(512):
            break
        size = int(h[124:136].rstrip(b"\0 ") or b"0", 8)
        kind = h[156:157]
        body = data[at + 512:at + 512 + size]
        if kind not in (b"x", b"g"):
            name = h[0:100].split(b"\0")[0].decode()
            print(json.dumps({"name": name, "header": h.hex(), "data": body.hex()}))
        at += 512 + size + (-size % 512)


if __name__ == "__main__":
    {"build": build, "edges": edges, "members": members}[sys.argv[1]](sys.argv[2])
