#!/bin/sh
# Compiles C modules of Sources/ for the fuzz builds (no SwiftPM): Fuzz/build_c.sh NAME...
# For each NAME, Fuzz/bin/modules/NAME/module.modulemap (its include/ header) and
# Fuzz/bin/modules/NAME.o; CLibraryLoader, which CPlist, CZlib and CDeflate load their library
# with, is always built too. Prints the swiftc arguments that use them (-I … and the objects).
set -eu
cd "$(dirname "$0")/.."
m=Fuzz/bin/modules
mkdir -p $m
flags=""
for name in CLibraryLoader "$@"; do
  mkdir -p "$m/$name"
  header=$(ls Sources/$name/include/*.h | head -1)
  printf 'module %s {\n    header "%s"\n    export *\n}\n' "$name" "$(pwd)/$header" > "$m/$name/module.modulemap"
  clang -fsanitize=address -O1 -g -c -I "Sources/$name/include" -I Sources/CLibraryLoader/include \
    Sources/$name/*.c -o "$m/$name.o"
  flags="$flags -I $m/$name $m/$name.o"
done
echo "$flags"
