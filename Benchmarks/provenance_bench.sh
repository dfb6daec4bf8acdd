#!/bin/sh
# `xds where -r` beside `xds show -r`, and `xds strip -r` beside `xds remove -r`, on the same
# tree and the same -j, in one run (part of make bench; also runs alone). Issue 26's targets:
# where -r within 1.2x of show -r, strip -r within 1.2x of remove -r, memory flat.
#   0. like for like: where -r vs show -r on the tree before add_marks.py (x-document-source
#      only: both find the same files and write one record each), interleaved;
#   1. correctness: `where -r --json` lists exactly the files add_marks.py counted;
#   2. where -r --json vs show -r --json, -j 1 and -j 2, interleaved round by round
#      (Benchmarks/tools/interleave.c; warm page cache);
#   3. strip -r vs remove -r: each round copies the tree afresh (cp -a keeps the attributes;
#      not timed), then times one command, alternating remove and strip (Python's
#      time.perf_counter around the process); -j 2. Then `where -r` on the stripped copy must find
#      nothing (status 1);
#   4. memory: peak RSS (/usr/bin/time -f %M) of where -r --json, strip -r -n and show -r --json
#      at FILES/10, FILES and MILLION files (MILLION=0 skips the big tree);
#   5. check beside where -r (issue 32's target: check within 1.2x of where -r): where -r,
#      where -r --json, check, check --json and check --names-only, -j 1 and -j 2, interleaved
#      round by round on the tree with marks (and, like for like, on the x-document-source tree
#      in stage 0's run), with the ratio of each median to where -r's; check's lines are
#      counted against where -r's files first.
# Trees: Benchmarks/tools/make_tree.py (10 % with x-document-source, 1000 leaf folders), then
# Benchmarks/tools/add_marks.py (10 % with a quarantine and an xdg origin URL, 1 % with a
# NAME:Zone.Identifier file, every file with user.mime_type, which is not a mark).
#
# Environment: XDS (default .build/release/xds, else .build/debug/xds with a warning),
# OUT (.build/bench), FILES (100000), MILLION (1000000), RUNS (5), TMP (needs user xattrs),
# STAGES (the stages to run, default "0 1 2 3 4 5"; STAGES="0 5" gives check's figures alone).
set -eu
cd "$(dirname "$0")/.."
B=Benchmarks/tools
XDS=${XDS:-$(pwd)/.build/release/xds}
if [ ! -x "$XDS" ]; then
  XDS=$(pwd)/.build/debug/xds
  echo "provenance bench: no release build; timing the DEBUG build $XDS" >&2
fi
[ -x "$XDS" ] || { echo "provenance bench: $XDS missing" >&2; exit 66; }
OUT=${OUT:-.build/bench}
FILES=${FILES:-100000}
MILLION=${MILLION:-1000000}
RUNS=${RUNS:-5}
STAGES=${STAGES:-0 1 2 3 4 5}
stage() { case " $STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
PY=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMP:-${TMPDIR:-/tmp}}/xds-provenance-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
TREE=$WORK/tree
SMALL=$WORK/small
"$PY" "$B/make_tree.py" "$TREE" -n "$FILES" >/dev/null
"$PY" "$B/make_tree.py" "$SMALL" -n "$((FILES / 10))" >/dev/null
"$PY" "$B/add_marks.py" "$SMALL" >/dev/null
REPORT=$OUT/provenance.txt
: > "$REPORT"
say() { echo "$@" | tee -a "$REPORT"; }

say "== provenance: where -r vs show -r, strip -r vs remove -r over $FILES files; xds: $XDS"
say "   machine: $(nproc) cores, $(uname -sr); $(date -u "+%Y-%m-%d %H:%M UTC"); load$(uptime | sed "s/.*load//")"
cc -O2 -o "$OUT/interleave" "$B/interleave.c"
ROUNDS=$((RUNS * 3))
# Like for like first: on the tree as make_tree.py made it (x-document-source only), where -r
# and show -r find the same files and write one record each.
# check_vs_where LABEL TREE: stage 5's interleaved run (check exits 1 when it finds something:
# interleave does not look at statuses).
check_vs_where() {
  for j in 1 2; do
    "$OUT/interleave" -w 1 -x 1 "$ROUNDS" "where-j$j=$XDS where -r -j $j $2" "where-json-j$j=$XDS where -r --json -j $j $2" \
      "check-j$j=$XDS check -j $j $2" "check-json-j$j=$XDS check --json -j $j $2" \
      "names-only-j$j=$XDS check --names-only -j $j $2" > "$OUT/provenance-check-$1-j$j.txt"
    awk 'NR == 2 { base = $2 } NR > 1 { printf "   %-15s %7.3f  %.2f\n", $1, $2 / 1000, $2 / base }' \
      "$OUT/provenance-check-$1-j$j.txt" | tee -a "$REPORT"
  done
}
if stage 0; then
say "== 0/5 where -r vs show -r on the same files (x-document-source only), interleaved, $ROUNDS rounds: median s, ratio to show -j 1"
"$OUT/interleave" -w 1 "$ROUNDS" "show-j1=$XDS show -r --json -j 1 $TREE" "where-j1=$XDS where -r --json -j 1 $TREE" \
  "show-j2=$XDS show -r --json -j 2 $TREE" "where-j2=$XDS where -r --json -j 2 $TREE" > "$OUT/provenance-plain.txt"
awk 'NR > 1 { printf "   %-9s %7.3f  %.2f\n", $1, $2 / 1000, $5 }' "$OUT/provenance-plain.txt" | tee -a "$REPORT"
fi
if stage 5; then
say "== 5/5 (like for like) check vs where -r on the same files (x-document-source only), interleaved, $ROUNDS rounds: median s, ratio to where -r (text) at the same -j"
check_vs_where plain "$TREE"
fi
cp -a "$TREE" "$WORK/plain"
EXPECTED=$("$PY" "$B/add_marks.py" "$TREE")
if stage 1; then
say "== 1/5 correctness"
found=$("$XDS" where -r --json "$TREE" | wc -l)
say "   files with a mark: add_marks.py $EXPECTED, where -r $found"
[ "$found" -eq "$EXPECTED" ] || { say "   MISMATCH"; SAME=no; }
fi

if stage 5; then
# check names every mark (one line per kind) and every zone file; where -r one record per file.
lines=$("$XDS" check --json "$TREE" | wc -l)
files=$("$XDS" check --json "$TREE" | "$PY" -c 'import json, sys; print(len({json.loads(l)["file"].removesuffix(":Zone.Identifier") for l in sys.stdin}))')
say "== 5/5 check vs where -r on the tree with marks: check --json $lines findings on $files files (where -r: $EXPECTED files); interleaved, $ROUNDS rounds: median s, ratio to where -r (text) at the same -j"
[ "$files" -eq "$EXPECTED" ] || { say "   MISMATCH"; SAME=no; }
check_vs_where marks "$TREE"
fi

if stage 2; then
say "== 2/5 where -r vs show -r (--json, warm cache), interleaved, $ROUNDS rounds: median s, ratio to show at the same -j"
for j in 1 2; do
  "$OUT/interleave" -w 1 "$ROUNDS" "show-j$j=$XDS show -r --json -j $j $TREE" "where-j$j=$XDS where -r --json -j $j $TREE" \
    > "$OUT/provenance-where-j$j.txt"
  awk 'NR > 1 { printf "   %-9s %7.3f  %.2f\n", $1, $2 / 1000, $5 }' "$OUT/provenance-where-j$j.txt" | tee -a "$REPORT"
done
fi

if stage 3; then
say "== 3/5 strip -r vs remove -r (-j 2), a fresh copy of the tree per run, $RUNS runs each, alternating: the x-document-source tree (the same files), then the tree with marks"
strip_vs_remove() {
"$PY" - "$XDS" "$1" "$WORK/copy" "$RUNS" "$2" <<'PYEOF' | tee -a "$REPORT"
import statistics, subprocess, sys, time
xds, tree, copy, runs, label = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
print(f"   {label}:")
times = {"remove": [], "strip": []}
for r in range(runs):
    order = ["remove", "strip"] if r % 2 == 0 else ["strip", "remove"]
    for name in order:
        subprocess.run(["rm", "-rf", copy], check=True)
        subprocess.run(["cp", "-a", tree, copy], check=True)
        subprocess.run(["sync"], check=True)
        start = time.perf_counter()
        done = subprocess.run([xds, name, "-r", "-j", "2", copy], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[name].append(time.perf_counter() - start)
        if done.returncode != 0:
            print(f"   {name} -r exited {done.returncode}")
after = subprocess.run([xds, "where", "-r", copy], capture_output=True)
print(f"   after the last strip -r: where -r printed {len(after.stdout)} bytes, status {after.returncode} (expected 0 bytes, 1)"
      if order[-1] == "strip" else "   (the last run was remove)")
m = {k: statistics.median(v) for k, v in times.items()}
for k in ["remove", "strip"]:
    print(f"   {k:<9} {m[k]:7.3f}  ({min(times[k]):.3f}-{max(times[k]):.3f})")
print(f"   strip/remove {m['strip'] / m['remove']:.2f} (target <= 1.2)")
PYEOF
}
strip_vs_remove "$WORK/plain" "x-document-source only"
rm -rf "$WORK/plain"
strip_vs_remove "$TREE" "with marks (add_marks.py)"
fi
rm -rf "$WORK/plain"

if stage 4; then
say "== 4/5 memory: peak RSS (KiB), default threads"
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
say "   $((FILES / 10)) files: where -r $(rss "$XDS" where -r --json "$SMALL"), strip -r -n $(rss "$XDS" strip -r -n "$SMALL"), show -r $(rss "$XDS" show -r --json "$SMALL")"
say "   $FILES files: where -r $(rss "$XDS" where -r --json "$TREE"), strip -r -n $(rss "$XDS" strip -r -n "$TREE"), show -r $(rss "$XDS" show -r --json "$TREE")"
if [ "$MILLION" -gt 0 ]; then
  rm -rf "$SMALL" "$WORK/copy"
  BIG=$WORK/big
  "$PY" "$B/make_tree.py" "$BIG" -n "$MILLION" >/dev/null
  "$PY" "$B/add_marks.py" "$BIG" >/dev/null
  say "   $MILLION files: where -r $(rss "$XDS" where -r --json "$BIG"), strip -r -n $(rss "$XDS" strip -r -n "$BIG"), show -r $(rss "$XDS" show -r --json "$BIG")"
fi
fi
[ "${SAME:-yes}" = yes ]
