#!/bin/sh
# Start-up of `xds show FILE` against a static Swift hello-world (part of make bench; also runs
# alone). Goal (issue 17): ≤ 1.3× the hello-world's median. The commands run interleaved, round
# after round (Benchmarks/tools/interleave.c): start-up times of 1–3 ms drift with the machine's
# state by more than the differences measured, and hyperfine's runs of one command in a row put
# that drift into the ratio. xds is timed stripped, as `make install` and the Debian package
# install it (the unstripped build runs ~0.2 ms slower here). Also prints page faults (perf,
# when it is installed).
#
# Environment: XDS (default .build/release/xds), XDS_BEFORE (optional: another build to compare),
# OUT (.build/bench), RUNS (rounds, default 300).
set -eu
cd "$(dirname "$0")/.."
XDS=${XDS:-$(pwd)/.build/release/xds}
OUT=${OUT:-.build/bench}
RUNS=${RUNS:-300}
[ -x "$XDS" ] || { echo "startup bench: $XDS missing; run: make build" >&2; exit 66; }
mkdir -p "$OUT"
work=$(mktemp -d "${TMPDIR:-/tmp}/xds-startup-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cc -O2 -o "$work/interleave" Benchmarks/tools/interleave.c
strip -o "$work/xds" "$XDS"
echo 'print("hello")' > "$work/hello.swift"
swiftc -O -static-stdlib "$work/hello.swift" -o "$work/hello" 2>/dev/null
: > "$work/doc.txt"
"$XDS" set "$work/doc.txt" --id com.example.app --name Example --app-info-url https://example.com/appInfo.json
set -- "hello=$work/hello" "xds-show=$work/xds show $work/doc.txt"
if [ -n "${XDS_BEFORE:-}" ]; then
  strip -o "$work/xds-before" "$XDS_BEFORE"
  set -- "$@" "before-show=$work/xds-before show $work/doc.txt"
fi
echo "== start-up: $RUNS interleaved rounds; xds: $XDS"
"$work/interleave" "$RUNS" "$@" | tee "$OUT/startup.txt"
if command -v perf >/dev/null 2>&1; then
  for command in "$work/hello" "$work/xds show $work/doc.txt"; do
    faults=$(perf stat -x, -e page-faults -r 20 $command 2>&1 >/dev/null | awk -F, '/page-faults/ { print $1 }')
    echo "   page faults: ${faults:-?}  ($command)"
  done
fi
ratio=$(awk '$1 == "xds-show" { print $5 }' "$OUT/startup.txt")
{
  echo "| start-up (interleaved medians) | figure | goal |"
  echo "|---|---|---|"
  echo "| xds show FILE / static hello-world | ${ratio}× | ≤ 1.3× |"
} > "$OUT/startup-summary.md"
cat "$OUT/startup-summary.md"
