#!/bin/sh
# make demo: shows xds on a sample file in a temporary folder, then fetches and masks the
# project's own icon from its appInfo.json in the repository root (no network). The PNGs it
# makes are kept in OUT (default: .build/demo) so they can be opened afterwards.
# Usage: demo.sh PATH/TO/xds [OUT]
set -eu
xds=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/xds-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
out=${2:-$top/.build/demo}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$dir"

# Shows and runs one xds command line (arguments with spaces shown quoted).
run() {
  printf '\n$ xds'
  for arg in "$@"; do
    case $arg in *" "*) printf " '%s'" "$arg" ;; *) printf ' %s' "$arg" ;; esac
  done
  printf '\n'
  "$xds" "$@"
}

printf 'A note written on an iPad.\n' > notes.txt
echo "Demo folder: $dir"
run set notes.txt --id com.appliedphasor.working-copy --name "Working Copy" \
    --path "notes/notes.txt" --app-info-url "https://workingcopy.app/appInfo.json"
run show notes.txt
run show --json notes.txt
if command -v getfattr >/dev/null 2>&1 && [ "$(uname -s)" = Linux ]; then
  printf '\n$ getfattr -n user.x-document-source --only-values notes.txt | head -c 8\n'
  getfattr -n user.x-document-source --only-values notes.txt | head -c 8; echo
fi
run set notes.txt --path "archive/notes.txt"
run show notes.txt
if "$xds" --help | grep -q "^  mask "; then
  run mask "$top/img/icon-1024.png" --size 29 --scale 2 -o "$out/mask-58.png"
fi
run remove notes.txt
printf '\n$ xds show notes.txt   # now absent: exit status 1\n'
"$xds" show notes.txt 2>&1 || echo "exit status $?"

# The whole loop of the convention on the project's own appInfo.json and img/ (no network):
# ./appInfo.json is read, the 58 px entry chosen and masked (local lists are never cached).
cd "$top"
run icon --size 58 -o "$out/icon-58.png"
run icon --size 29 --scale 3 --shape circular -o "$out/icon-87-circular.png"
printf '\nThe PNGs are kept for you to open:\n'
for png in "$out"/*.png; do printf '  %s\n' "$png"; done
