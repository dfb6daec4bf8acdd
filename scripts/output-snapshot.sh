#!/bin/sh
# Writes what one xds binary prints and writes for a fixed set of inputs, so that two builds
# can be compared byte for byte (issue 15: "outputs byte-identical before and after"):
#
#   sh scripts/output-snapshot.sh OLD/xds /tmp/before
#   sh scripts/output-snapshot.sh .build/debug/xds /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Covers set (every store), show (one file, --json, archives, compressed tars by their bytes,
# -r with -j 1 so that the order is fixed, --help), remove -r -n, where and strip (every store
# here, -r, --summary, -n), icon (local list, no network), mask and appinfo, with their exit
# status and standard error; also every kind of other key, wrong-type keys, escapes, names
# that are not UTF-8, an orphan sidecar, TextBundles (.textbundle, .textpack) and the
# removal reports of remove FILE and remove -r (python3 writes the property lists). Inputs are made in a temporary folder from the repository's own
# files (appInfo.json, img/); nothing outside it is read or written.
set -eu
xds=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# run NAME CMD...: standard output, standard error (temporary folder spelled T) and status.
run() {
    name=$1; shift
    status=0
    "$@" > "$out/$name.out" 2> "$out/$name.err" || status=$?
    sed -i "s|$work|T|g" "$out/$name.out" "$out/$name.err"
    echo "$status" > "$out/$name.status"
}

export XDG_CACHE_HOME="$work/cache" HOME="$work/home"
mkdir -p tree/a/b tree/c home
for f in tree/one.txt tree/a/two.pdf tree/a/b/three.md tree/c/four tree/c/five tree/plain; do
    printf 'content of %s\n' "$f" > "$f"
done
run set-xattr "$xds" set tree/one.txt tree/a/two.pdf --id com.example.editor --name Editor \
    --path /Documents/one.txt --app-info-url https://example.com/appInfo.json
run set-samba "$xds" set tree/a/b/three.md --id com.example.notes --name 'Notes ✎' --store samba-stream
run set-sidecar "$xds" set tree/c/four --id org.example.sidecar --name Sidecar --store sidecar
run set-update "$xds" set tree/c/four --name 'Sidecar 2'
run set-bad "$xds" set tree/c/five --app-info-url http://example.com/x.json
setfattr -n user.x-document-source -v 0x62706c6973743030ffff tree/c/five
run getfattr getfattr -R -d -m - -e hex tree

run show-one "$xds" show tree/one.txt
run show-json "$xds" show --json tree/one.txt tree/a/b/three.md tree/c/four tree/c/five tree/plain tree/missing
run show-tree "$xds" show -r -j 1 tree
run show-tree-json "$xds" show -r -j 1 --json tree
run remove-dry "$xds" remove -r -n -j 1 tree

# Escapes, typed other keys, warnings, names that are not UTF-8, an orphan sidecar and
# TextBundles (a folder with and without the attribute, a .textpack zip), in their own tree.
mkdir -p more/d more/Note.textbundle more/Bare.textbundle more/Odd.textbundle
value() {  # value FILE: a binary property list with every kind of other key, hex for setfattr
    python3 - "$1" <<'PY'
import plistlib, sys, datetime
kind = sys.argv[1]
d = {"identifier": "com.example.odd", "name": 'Quote " back \\ tab \t nl \n bidi \u202e end',
     "path": "a\u2028b/\u00e9\u0007.txt", "appInfoURL": "https://example.com/a.json"}
if kind == "typed":
    d.update({"data": b"\x00\x01\xfe\xff" * 5, "empty": b"", "date": datetime.datetime(2024, 5, 1, 12, 30, 0, 250000),
              "old": datetime.datetime(1, 1, 1), "nan": float("nan"), "inf": float("-inf"), "real": 1.5,
              "big": 1e20, "int": -3, "uint": 2**63 + 1, "yes": True, "uid": plistlib.UID(7),
              "list": [1, "two", [], {}], "dict": {"z": 1, "a": {"k\u0001": "v\""}}, "key\nline": "x"})
elif kind == "wrong":
    d = {"identifier": 42, "name": ["x"], "path": "p", "appInfoURL": True, "extra": "e"}
sys.stdout.write("0x" + plistlib.dumps(d, fmt=plistlib.FMT_BINARY).hex())
PY
}
for f in typed wrong plain; do printf 'x\n' > "more/d/$f"; done
bad=$(printf 'more/d/bad\377\376name')
nl=$(printf 'more/d/new\nline')
printf 'x\n' > "$bad"; printf 'x\n' > "$nl"
setfattr -n user.x-document-source -v "$(value typed)" more/d/typed
setfattr -n user.x-document-source -v "$(value wrong)" more/d/wrong
setfattr -n user.x-document-source -v "$(value plain)" "$bad"
setfattr -n user.x-document-source -v "$(value plain)" "$nl"
printf 'x\n' > more/d/malformed
setfattr -n user.x-document-source -v 0x62706c6973743030ffff more/d/malformed
printf 'x\n' > more/d/gone; printf 'x\n' > 'more/d/back\slash'
run more-set-back "$xds" set 'more/d/back\slash' --id org.example.back --name Back --store sidecar
run more-set-gone "$xds" set more/d/gone --id org.example.gone --name Gone --store sidecar
rm -f more/d/gone
printf 'text\n' > more/Note.textbundle/text.md
printf '{"version":2,"type":"net.daringfireball.markdown","transient":false,"creatorIdentifier":"com.example.writer","creatorURL":"https://example.com/w","sourceURL":"https://example.com/p?a=1&b=\\"2\\"","x-app":1}' > more/Note.textbundle/info.json
printf '{"version":"2","transient":1,"type":null,"creatorURL":[]}' > more/Bare.textbundle/info.json
printf 'not json' > more/Odd.textbundle/info.json
run more-set-note "$xds" set more/Note.textbundle --id com.example.writer --name Writer
run more-set-odd "$xds" set more/Odd.textbundle --id com.example.odd --name Odd
cp more/Note.textbundle/info.json info.json
printf 'text\n' > text.md
run more-set-text "$xds" set text.md --id com.example.packed --name Packed --store sidecar
zip -q -X more/Pack.textpack info.json text.md ._text.md
zip -q -X more/Empty.textpack info.json text.md
rm -f info.json text.md ._text.md
run more-show "$xds" show more/d/typed more/d/wrong "$bad" "$nl" more/Note.textbundle more/Bare.textbundle \
    more/Odd.textbundle more/Pack.textpack more/Empty.textpack more/d/plain 'more/d/back\slash'
run more-show-json "$xds" show --json more/d/typed more/d/wrong "$bad" "$nl" more/Note.textbundle \
    more/Bare.textbundle more/Odd.textbundle more/Pack.textpack more/Empty.textpack more/d/plain 'more/d/back\slash'
run more-show-tree "$xds" show -r -j 1 more
run more-show-tree-json "$xds" show -r -j 1 --json more
run more-remove-dry "$xds" remove -r -n -j 1 more

# Removal reports: remove FILE (a value only in a sidecar; a value in two stores), remove -r.
cp -a more removed
printf 'x\n' > 'removed/si\de'; printf 'x\n' > removed/both
run rm-set-side "$xds" set 'removed/si\de' --id a.b --name B --store sidecar
printf 'x\n' > removed/tmp
run rm-set-both "$xds" set removed/tmp --id a.b --name B --store sidecar
mv removed/._tmp removed/._both; rm removed/tmp
setfattr -n user.x-document-source -v "$(value plain)" removed/both
run rm-side "$xds" remove 'removed/si\de' removed/none
run rm-both "$xds" remove removed/both
run rm-tree "$xds" remove -r -j 1 removed
run rm-after "$xds" show -r -j 1 removed

# Archives: a tar with extended-attribute headers, a zip with an AppleDouble member.
tar --xattrs --xattrs-include='user.*' -cf tree.tar tree/one.txt tree/a/two.pdf tree/plain
(cd tree/c && zip -q -X ../../tree.zip four ._four)
run show-tar "$xds" show --json tree.tar
run show-zip "$xds" show tree.zip
run show-archives-r "$xds" show -r -j 1 --json tree.tar tree.zip
# Tars by their bytes, under the names of issue 27: gzip saved as .tar, compress as .tar.Z,
# lzma as .tlz (before: "unrecognized archive format", and no archives at all).
gzip -n -c < tree.tar > gzipped.tar
compress -f -c < tree.tar > tree.tar.Z
xz --format=lzma -c < tree.tar > tree.tlz
run show-tars "$xds" show --json gzipped.tar tree.tar.Z tree.tlz
# What show says about archives (the help text).
run show-help "$xds" show --help

# Marks of where files came from (where, strip): every kind the tree can carry here, a value
# that does not decode, escapes, an orphan zone file, a tar member's marks.
mkdir -p marks/d
printf 'x\n' > marks/d/dl.bin; printf 'x\n' > marks/d/odd; printf 'x\n' > marks/d/none
setfattr -n user.com.apple.quarantine -v '0083;5fad2a2e;Safari;5E2F8E27-1B5C-4A0B-9A63-2C1E1B4D5C6F' marks/d/dl.bin
setfattr -n user.xdg.origin.url -v 'https://joe:pw@dl.example.com/dl.bin?token=s3cret#frag' marks/d/dl.bin
setfattr -n user.xdg.referrer.url -v 'https://example.com/page?q=1' marks/d/dl.bin
setfattr -n user.mime_type -v application/octet-stream marks/d/dl.bin
setfattr -n user.com.apple.lastuseddate#PS -v 0x2e2aad5f00000000a086010000000000 marks/d/dl.bin
printf '[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://dl.example.com/dl.bin\r\n' > 'marks/d/dl.bin:Zone.Identifier'
printf '[ZoneTransfer]\nZoneId=4\n' > 'marks/d/gone:Zone.Identifier'
setfattr -n user.com.apple.quarantine -v "$(printf '0001;5fad2a2e;Evil\\x1b[31m\033[2J;')" marks/d/odd
setfattr -n 'user.com.apple.metadata:kMDItemDownloadedDate' -v 0x62706c6973743030ffff marks/d/odd
setfattr -n user.com.apple.provenance -v 0x01020304 marks/d/odd
(cd marks/d && tar --xattrs --xattrs-include='user.*' -cf ../dl.tar dl.bin)
run where-one "$xds" where marks/d/dl.bin marks/d/odd marks/d/none
run where-json "$xds" where --json marks/d/dl.bin marks/d/odd marks/d/none
run where-redact "$xds" where --redact --json marks/d/dl.bin
run where-tar "$xds" where marks/dl.tar
run where-tree "$xds" where -r -j 1 marks
run where-summary "$xds" where -r -j 1 --summary marks
run where-summary-json "$xds" where -r -j 1 --summary --json marks
run strip-dry "$xds" strip -r -n -j 1 marks
run strip-only "$xds" strip --only quarantine,xdg --keep zone-identifier marks/d/dl.bin marks/d/none
run strip-tree "$xds" strip -r -j 1 marks
run strip-after "$xds" where -r -j 1 marks
run strip-getfattr getfattr -R -d -m - -e hex marks

# Icons from the repository's own list (local: no network).
cp -R "$repo/appInfo.json" "$repo/img" .
run icon-58 "$xds" icon tree/one.txt --app-info appInfo.json --size 29 --scale 2 -o icon-58.png
run icon-circ "$xds" icon --size 60 --scale 3 --shape circular --no-stroke -o icon-180.png
run icon-none "$xds" icon tree/plain
for size in 29 58 180 1024; do
    run "mask-$size" "$xds" mask img/icon-1024.png --size "$size" -o "mask-$size.png"
done
run mask-none "$xds" mask img/icon-87.png --shape none -o mask-none.png
run mask-bad "$xds" mask appInfo.json -o mask-bad.png

# A publisher's bundle: an iOS app with two icon files.
mkdir -p Editor.app
cp img/icon-58.png Editor.app/AppIcon29x29@2x.png
cp img/icon-1024.png Editor.app/AppIcon1024.png
cat > Editor.app/Info.plist <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>com.example.editor</string>
<key>CFBundleDisplayName</key><string>Editor</string>
<key>CFBundleIconFiles</key><array><string>AppIcon29x29</string><string>AppIcon1024</string></array>
</dict></plist>
EOF
run appinfo "$xds" appinfo Editor.app -o site --sizes 29,58,87,120,1024 --base-url https://example.com/editor/
for f in *.png site/appInfo.json site/img/*.png; do
    [ -f "$f" ] && cp "$f" "$out/file-$(echo "$f" | tr / _)"
done
exit 0
