#!/bin/sh
# Where the time of one whole `xds mask` process goes: perf-records the release xds masking
# every corpus icon (1024 px) at each size, then splits the samples into stages
# (Benchmarks/perf_stages.py). Needs perf (linux-perf); software clock, so it works in VMs.
# usage: Benchmarks/profile.sh [SIZES]   (default "58 180"; CORPUS=DIR as in run.sh, else the
# generated corpus of Benchmarks/make_corpus.sh)
set -eu
cd "$(dirname "$0")/.."
XDS=$(pwd)/.build/release/xds
OUT=${OUT:-.build/bench}
mkdir -p "$OUT"
if [ -z "${CORPUS:-}" ]; then
  [ -d "$OUT/corpus/icons" ] || sh Benchmarks/make_corpus.sh "$OUT/corpus" >/dev/null
  CORPUS=$OUT/corpus/icons
fi
n=$(ls "$CORPUS"/*.png | wc -l)
for size in ${1:-58 180}; do
  perf record -q -e cpu-clock -F 25000 -g -o "$OUT/perf-$size.data" -- sh -c \
    "for f in '$CORPUS'/*.png; do '$XDS' mask \"\$f\" --size $size --shape circular -o '$OUT/p.png'; done" \
    >/dev/null 2>&1
  echo "== xds mask 1024 -> $size px, $n icons (perf, 25 kHz cpu-clock)"
  python3 Benchmarks/perf_stages.py "$OUT/perf-$size.data" "$n" 0.04
done
perf record -q -e cpu-clock -F 25000 -g -o "$OUT/perf-version.data" -- sh -c \
  "for i in \$(seq $n); do '$XDS' --version; done" >/dev/null 2>&1
echo "== xds --version (start-up alone), $n runs"
python3 Benchmarks/perf_stages.py "$OUT/perf-version.data" "$n" 0.04
