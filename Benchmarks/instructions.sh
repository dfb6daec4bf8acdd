#!/bin/sh
# CPU work of the icon jobs in instructions (valgrind callgrind): repeatable on a loaded machine,
# where wall and even CPU times of 10–50 ms processes move by 20 %. Part of make bench when
# valgrind is installed; also runs alone. XDS_BEFORE (optional): a second build to compare.
#
#   xds mask img/icon-1024.png --size 58; --size 60 --scale 3; xds --version (start-up alone);
#   xds appinfo with --sizes 1024, 1024,29,58,87 and 12 sizes: instructions per extra size.
#
# callgrind cannot read the debug info of the static release binary: it runs a copy without it
# (objcopy --strip-debug; the symbol table stays, so callgrind_annotate names functions).
# Environment: XDS (default .build/release/xds), OUT (.build/bench).
set -eu
cd "$(dirname "$0")/.."
XDS=${XDS:-$(pwd)/.build/release/xds}
OUT=${OUT:-.build/bench}
command -v valgrind >/dev/null || { echo "instructions: valgrind missing (apt-get install valgrind)" >&2; exit 0; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/xds-instr.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
src=$(pwd)/img/icon-1024.png
mkdir -p "$work/Bench.app"
cat > "$work/Bench.app/Info.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>com.example.bench</string>
<key>CFBundleDisplayName</key><string>Bench</string>
<key>CFBundleIconFiles</key><array><string>AppIcon</string></array>
</dict></plist>
PLIST
cp "$src" "$work/Bench.app/AppIcon.png"
count() {  # count BIN LABEL ARGS...: instructions of one run
  bin=$1; label=$2; shift 2
  valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$label.out" "$bin" "$@" >/dev/null 2>"$work/err"
  grep -o 'Collected : [0-9]*' "$work/err" | grep -o '[0-9]*'
}
report() {  # report BIN NAME
  bin=$work/$2; objcopy --strip-debug "$1" "$bin"
  m58=$(count "$bin" "$2-mask58" mask "$src" --size 58 -o "$work/a.png")
  m180=$(count "$bin" "$2-mask60x3" mask "$src" --size 60 --scale 3 -o "$work/b.png")
  ver=$(count "$bin" "$2-version" --version)
  a1=$(count "$bin" "$2-appinfo1" appinfo "$work/Bench.app" -o "$work/s1" --sizes 1024)
  a4=$(count "$bin" "$2-appinfo4" appinfo "$work/Bench.app" -o "$work/s4" --sizes 1024,29,58,87)
  a12=$(count "$bin" "$2-appinfo12" appinfo "$work/Bench.app" -o "$work/s12" --sizes 1024,29,58,87,40,60,76,80,120,152,167,180)
  awk -v n="$2" -v m58="$m58" -v m180="$m180" -v ver="$ver" -v a1="$a1" -v a4="$a4" -v a12="$a12" 'BEGIN {
    printf "| %s | %.1f M | %.1f M | %.1f M | %.1f M (%.1f → %.1f M) | %.1f M (→ %.1f M) |\n", n,
      m58 / 1e6, m180 / 1e6, ver / 1e6, (a4 - a1) / 3e6, a1 / 1e6, a4 / 1e6, (a12 - a4) / 8e6, a12 / 1e6 }'
}
{
  echo "| instructions (callgrind) | mask 1024→58 | mask 60@3x | --version | appinfo: per extra size 29, 58, 87 | per extra size 40…180 (4 → 12 sizes) |"
  echo "|---|---|---|---|---|---|"
  report "$XDS" this
  if [ -n "${XDS_BEFORE:-}" ]; then report "$XDS_BEFORE" before; fi
} | tee "$OUT/instructions.md"
