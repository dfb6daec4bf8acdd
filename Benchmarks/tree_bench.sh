#!/bin/sh
# `xds show -r` over a whole tree (part of make bench; also runs alone), in one run:
#   1. correctness: the set of tagged files from `xds show -r --json` equals getfattr -R's and
#      the Python reader's;
#   2. speed (hyperfine, warm page cache): xds show -r --json vs getfattr -R -n, getfattr -R -m
#      (silent for untagged files), the Python reader (xattr_read.py) and find (the floor);
#      targets: xds <= 0.5x getfattr, <= 2x find;
#   3. memory: peak RSS (/usr/bin/time -f %M) of xds for a tree of FILES/10 and of FILES files
#      (target: flat).
# Trees are built by ../shared/bench/make_tree.py (10 % tagged, 1000 leaf folders) under TMP.
#
# Environment: XDS (default .build/release/xds, else .build/debug/xds with a warning), SHARED,
# OUT (.build/bench), FILES (100000), RUNS (5), TMP (the system temp folder; needs user xattrs).
set -eu
cd "$(dirname "$0")/.."
if [ -z "${SHARED:-}" ]; then
  [ -d ../shared/bench ] && SHARED=../shared
fi
[ -f "${SHARED:-}/bench/make_tree.py" ] || { echo "tree bench: shared/bench/make_tree.py not found; set SHARED=" >&2; exit 66; }
B=$SHARED/bench
XDS=${XDS:-$(pwd)/.build/release/xds}
if [ ! -x "$XDS" ]; then
  XDS=$(pwd)/.build/debug/xds
  echo "tree bench: no release build; timing the DEBUG build $XDS (build one: swift build -c release --product xds --static-swift-stdlib)" >&2
fi
[ -x "$XDS" ] || { echo "tree bench: $XDS missing" >&2; exit 66; }
OUT=${OUT:-.build/bench}
FILES=${FILES:-100000}
RUNS=${RUNS:-5}
PY=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMP:-${TMPDIR:-/tmp}}/xds-tree-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
TREE=$WORK/tree
SMALL=$WORK/small
"$PY" "$B/make_tree.py" "$TREE" -n "$FILES" >/dev/null
"$PY" "$B/make_tree.py" "$SMALL" -n "$((FILES / 10))" >/dev/null

echo "== tree: xds show -r over $FILES files (10 % tagged); xds: $XDS"
echo "== 1/3 correctness: the same tagged files"
"$XDS" show -r --json "$TREE" | "$PY" -c 'import json, sys; [print(json.loads(l)["file"]) for l in sys.stdin]' | sort > "$WORK/xds.txt"
getfattr -R -m '^user\.x-document-source$' --absolute-names "$TREE" 2>/dev/null | sed -n 's/^# file: //p' | sort > "$WORK/getfattr.txt"
"$PY" "$B/xattr_read.py" "$TREE" | cut -f1 | sort > "$WORK/python.txt"
echo "   tagged files: xds $(wc -l < "$WORK/xds.txt"), getfattr $(wc -l < "$WORK/getfattr.txt"), python $(wc -l < "$WORK/python.txt")"
if cmp -s "$WORK/xds.txt" "$WORK/getfattr.txt" && cmp -s "$WORK/xds.txt" "$WORK/python.txt"; then
  echo "   identical sets: yes"
else
  echo "   identical sets: NO" ; SAME=no
fi

echo "== 2/3 speed: hyperfine, $RUNS runs after 1 warm-up, median s"
hyperfine --style none -i --warmup 1 --runs "$RUNS" --export-json "$OUT/tree.json" \
  -n find "find '$TREE' -type f | wc -l > /dev/null" \
  -n xds "'$XDS' show -r --json '$TREE' > /dev/null" \
  -n getfattr "getfattr -R -n user.x-document-source --absolute-names -e hex '$TREE' > /dev/null 2>&1" \
  -n getfattr-m "getfattr -R -d -m '^user\\.x-document-source\$' --absolute-names -e hex '$TREE' > /dev/null" \
  -n python "'$PY' '$B/xattr_read.py' '$TREE' > /dev/null" >/dev/null
"$PY" - "$OUT/tree.json" <<'PYEOF' | tee "$OUT/tree.txt"
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
for n in ["find", "xds", "getfattr", "getfattr-m", "python"]:
    t = r[n]["times"]
    print(f"   {n:<11} {r[n]['median']:7.3f}  ({min(t):.3f}-{max(t):.3f})")
x = r["xds"]["median"]
print(f"   xds/getfattr {x / r['getfattr']['median']:.2f} (target <= 0.5), xds/find {x / r['find']['median']:.2f} (target <= 2)")
PYEOF

echo "== 3/3 memory: peak RSS of xds show -r --json (KiB)"
small=$(/usr/bin/time -f %M "$XDS" show -r --json "$SMALL" 2>&1 >/dev/null | tail -1)
big=$(/usr/bin/time -f %M "$XDS" show -r --json "$TREE" 2>&1 >/dev/null | tail -1)
echo "   $((FILES / 10)) files: $small KiB; $FILES files: $big KiB" | tee -a "$OUT/tree.txt"
[ "${SAME:-yes}" = yes ]
