#!/bin/sh
# `xds show ARCHIVE` on a 10 000-member zip and tar.gz (part of make bench; also runs alone):
#   1. correctness: xds lists exactly the tagged members (MEMBERS/10 of them);
#   2. speed (hyperfine, warm page cache): xds show --json against unzip -l and tar tzf (which
#      only list names: the floor for reading every header);
#   3. memory: peak RSS (/usr/bin/time -f %M) of each, and of xds on a 10x larger zip (flat).
# The zip is written by scripts/make_test_archive.py (Finder layout: __MACOSX/DIR/._NAME entries
# for the tagged members); the tar.gz by GNU tar --xattrs from files with real
# user.x-document-source attributes (set by Python's os.setxattr).
#
# Environment: XDS (default .build/release/xds, else .build/debug/xds with a warning), OUT
# (.build/bench), MEMBERS (10000), RUNS (10), TMP (the system temp folder; needs user xattrs).
set -eu
cd "$(dirname "$0")/.."
XDS=${XDS:-$(pwd)/.build/release/xds}
if [ ! -x "$XDS" ]; then
  XDS=$(pwd)/.build/debug/xds
  echo "archive bench: no release build; timing the DEBUG build $XDS (build one: swift build -c release --product xds --static-swift-stdlib)" >&2
fi
[ -x "$XDS" ] || { echo "archive bench: $XDS missing" >&2; exit 66; }
OUT=${OUT:-.build/bench}
MEMBERS=${MEMBERS:-10000}
RUNS=${RUNS:-10}
PY=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMP:-${TMPDIR:-/tmp}}/xds-archive-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

# The archives.
echo "{\"out\": \"$WORK/m.zip\", \"many\": {\"count\": $MEMBERS, \"prefix\": \"docs/f\", \"tagged_every\": 10}}" \
  | "$PY" scripts/make_test_archive.py
echo "{\"out\": \"$WORK/big.zip\", \"many\": {\"count\": $((MEMBERS * 10)), \"prefix\": \"docs/f\", \"tagged_every\": 10}}" \
  | "$PY" scripts/make_test_archive.py
"$PY" - "$WORK/src" "$MEMBERS" <<'PYEOF'
import os, plistlib, sys
root, count = sys.argv[1], int(sys.argv[2])
value = plistlib.dumps({"identifier": "com.example.bench", "name": "Bench"}, fmt=plistlib.FMT_BINARY)
for i in range(count):
    folder = os.path.join(root, "d%03d" % (i // 100))
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "f%07d.txt" % i)
    with open(path, "w") as f:
        f.write("x\n")
    if i % 10 == 0:
        os.setxattr(path, "user.x-document-source", value)
PYEOF
(cd "$WORK" && tar --xattrs --xattrs-include='user.*' -czf m.tar.gz src)
ZIP=$WORK/m.zip
TGZ=$WORK/m.tar.gz

echo "== archive: xds show on a $MEMBERS-member zip and tar.gz (10 % tagged); xds: $XDS"
echo "== 1/3 correctness: the tagged members"
zn=$("$XDS" show --json "$ZIP" | wc -l)
tn=$("$XDS" show --json "$TGZ" | wc -l)
echo "   zip: $zn listed (want $((MEMBERS / 10))), $(unzip -Z1 "$ZIP" | wc -l) entries; tar.gz: $tn listed (want $((MEMBERS / 10))), $(tar tzf "$TGZ" | wc -l) entries"

echo "== 2/3 speed: hyperfine, $RUNS runs after 2 warm-ups, median ms"
hyperfine -N --style none -i --warmup 2 --runs "$RUNS" --export-json "$OUT/archive.json" \
  -n "xds zip" "$XDS show --json $ZIP" \
  -n "unzip -l" "unzip -l $ZIP" \
  -n "xds tar.gz" "$XDS show --json $TGZ" \
  -n "tar tzf" "tar tzf $TGZ" \
  -n "bsdtar tzf" "bsdtar tzf $TGZ" >/dev/null

echo "== 3/3 memory: peak RSS"
: > "$OUT/archive-memory.txt"
/usr/bin/time -f "xds-zip %M" -a -o "$OUT/archive-memory.txt" "$XDS" show --json "$ZIP" >/dev/null
/usr/bin/time -f "xds-zip-10x %M" -a -o "$OUT/archive-memory.txt" "$XDS" show --json "$WORK/big.zip" >/dev/null
/usr/bin/time -f "unzip-l %M" -a -o "$OUT/archive-memory.txt" unzip -l "$ZIP" >/dev/null
/usr/bin/time -f "xds-tar.gz %M" -a -o "$OUT/archive-memory.txt" "$XDS" show --json "$TGZ" >/dev/null
/usr/bin/time -f "tar-tzf %M" -a -o "$OUT/archive-memory.txt" tar tzf "$TGZ" >/dev/null

"$PY" - "$OUT/archive.json" "$OUT/archive-memory.txt" "$MEMBERS" <<'PYEOF' | tee "$OUT/archive.txt"
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) * 1000 for x in json.load(open(sys.argv[1]))["results"]}
mem = dict(line.split() for line in open(sys.argv[2]) if line.strip())
n = int(sys.argv[3])
print(f"| {n} members, 10 % tagged | xds show --json | anchor | ratio | xds peak RSS | anchor peak RSS |")
print("|---|---|---|---|---|---|")
print(f"| zip (vs unzip -l) | {r['xds zip']:.1f} ms | {r['unzip -l']:.1f} ms | {r['xds zip'] / r['unzip -l']:.2f} "
      f"| {int(mem['xds-zip']) / 1024:.1f} MiB | {int(mem['unzip-l']) / 1024:.1f} MiB |")
print(f"| tar.gz (vs tar tzf) | {r['xds tar.gz']:.1f} ms | {r['tar tzf']:.1f} ms | {r['xds tar.gz'] / r['tar tzf']:.2f} "
      f"| {int(mem['xds-tar.gz']) / 1024:.1f} MiB | {int(mem['tar-tzf']) / 1024:.1f} MiB |")
print(f"| tar.gz (vs bsdtar tzf) | {r['xds tar.gz']:.1f} ms | {r['bsdtar tzf']:.1f} ms | {r['xds tar.gz'] / r['bsdtar tzf']:.2f} | | |")
print(f"| zip, 10x the members | | | | {int(mem['xds-zip-10x']) / 1024:.1f} MiB | |")
PYEOF
