#!/bin/sh
# How `xds show -r` scales with threads (issue 17), on the same tree seen two ways:
#   1. tmpfs (or the system temp folder): every call is a cheap in-kernel call;
#   2. the same tree through a FUSE mount (bindfs, multithreaded): every call is a round trip
#      to a user-space server, as on a network filesystem, where threads pay most.
# For each: the one-thread floor (tree_floor.c) and xds show -r --json with -j 1, 2, 4 (and 8),
# hyperfine medians, then the ratios to -j 1 and to the floor. The machine's core count is
# printed first: threads beyond it can only overlap waiting, not computing.
#
# Environment: XDS (default .build/release/xds), OUT (.build/bench), FILES (100000),
# RUNS (5), TMP (a folder on the filesystem to test; needs user xattrs), TREE (a tree made by
# make_tree.py to use instead of making one: tree_bench.sh hands over its own, and its floor
# in OUT, so make bench builds each once). The FUSE half is
# skipped, saying so, without bindfs or /dev/fuse (Debian: apt-get install bindfs), or when not
# root.
set -eu
cd "$(dirname "$0")/.."
XDS=${XDS:-$(pwd)/.build/release/xds}
[ -x "$XDS" ] || { echo "tree scaling: $XDS missing (make build)" >&2; exit 66; }
OUT=${OUT:-.build/bench}
FILES=${FILES:-100000}
RUNS=${RUNS:-5}
PY=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
mkdir -p "$OUT"
FLOOR=$OUT/tree_floor
[ "$FLOOR" -nt Benchmarks/tree_floor.c ] || cc -O2 -o "$FLOOR" Benchmarks/tree_floor.c
WORK=$(mktemp -d "${TMP:-${TMPDIR:-/tmp}}/xds-tree-scaling.XXXXXX")
MOUNT=$WORK/fuse
cleanup() {
  if mountpoint -q "$MOUNT" 2>/dev/null; then fusermount -u "$MOUNT" 2>/dev/null || umount "$MOUNT" || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
if [ -z "${TREE:-}" ]; then
  TREE=$WORK/tree
  "$PY" Benchmarks/tools/make_tree.py "$TREE" -n "$FILES" >/dev/null
fi
echo "== tree scaling: $FILES files (10 % tagged) on $(stat -f -c %T "$TREE"), $(nproc) cores; xds: $XDS"

# measure NAME DIR: the floor and xds at 1, 2, 4 and 8 threads over DIR.
measure() {
  name=$1 dir=$2
  hyperfine -N --style none --warmup 1 --runs "$RUNS" --export-json "$OUT/scaling-$name.json" \
    -n floor "$FLOOR $dir" \
    -n j1 "$XDS show -r --json -j 1 $dir" \
    -n j2 "$XDS show -r --json -j 2 $dir" \
    -n j4 "$XDS show -r --json -j 4 $dir" \
    -n j8 "$XDS show -r --json -j 8 $dir" >/dev/null
  "$PY" - "$OUT/scaling-$name.json" "$name" <<'PYEOF' | tee -a "$OUT/scaling.txt"
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
print(f"   {sys.argv[2]:<6} floor {r['floor']:.3f} s; " + ", ".join(
    f"-j {n[1:]} {r[n]:.3f} s ({r['j1'] / r[n]:.2f}x of -j 1, {r[n] / r['floor']:.2f} of the floor)"
    for n in ["j1", "j2", "j4", "j8"]))
PYEOF
}

: > "$OUT/scaling.txt"
measure local "$TREE"
if [ "$(id -u)" != 0 ] || [ ! -e /dev/fuse ] || ! command -v bindfs >/dev/null 2>&1; then
  echo "   fuse: skipped (needs root, /dev/fuse and bindfs: apt-get install bindfs)" | tee -a "$OUT/scaling.txt"
else
  mkdir "$MOUNT"
  bindfs "$TREE" "$MOUNT"
  # The same tagged files through FUSE, or the figures mean nothing.
  a=$("$XDS" show -r --json -j 1 "$TREE" | wc -l)
  b=$("$XDS" show -r --json -j 1 "$MOUNT" | wc -l)
  [ "$a" = "$b" ] || { echo "tree scaling: $b records through FUSE, $a on the tree" >&2; exit 1; }
  measure fuse "$MOUNT"
fi
