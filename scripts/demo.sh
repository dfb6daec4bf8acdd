#!/bin/sh
# make demo: shows xds on a sample file in a temporary folder (no network, nothing outside it).
# Usage: demo.sh PATH/TO/xds
set -eu
xds=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/xds-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
cd "$dir"

run() { printf '\n$ %s\n' "$*"; "$@"; }

printf 'A note written on an iPad.\n' > notes.txt
echo "Demo folder: $dir"
run "$xds" set notes.txt --id com.appliedphasor.working-copy --name "Working Copy" \
    --path "notes/notes.txt" --app-info-url "https://workingcopy.app/appInfo.json"
run "$xds" show notes.txt
run "$xds" show --json notes.txt
if command -v getfattr >/dev/null 2>&1 && [ "$(uname -s)" = Linux ]; then
  printf '\n$ getfattr -n user.x-document-source --only-values notes.txt | head -c 8\n'
  getfattr -n user.x-document-source --only-values notes.txt | head -c 8; echo
fi
run "$xds" set notes.txt --path "archive/notes.txt"
run "$xds" show notes.txt
if "$xds" --help | grep -q "^  mask "; then
  run "$xds" mask "$top/img/icon-1024.png" --size 29 --scale 2 -o icon-58-masked.png
  echo "(wrote $dir/icon-58-masked.png: the project's icon masked as iOS draws it)"
fi
run "$xds" remove notes.txt
printf '\n$ xds show notes.txt   # now absent: exit status 1\n'
"$xds" show notes.txt || echo "exit status $?"
