#!/bin/sh
# Builds a libFuzzer target over the XDocSource, XDocSourceFetch and XDocSourceArchive modules
# (no SwiftPM):
#   Fuzz/build_xdocsource.sh NAME   → Fuzz/bin/NAME from Fuzz/NAME/FuzzEntry.swift
# The three modules are compiled once into Fuzz/bin/modules/lib*Fuzz.a (instrumented,
# -enable-testing so entries reach internal functions with @testable import), and rebuilt only
# when a source is newer; each target then compiles just its entry. XDSSystem is a module of
# its own, the C modules go through clang (Fuzz/build_c.sh: libplist, zlib and libarchive are
# loaded at run time, as in xds); address sanitizer on.
set -eu
name=$1
cd "$(dirname "$0")/.."
m=Fuzz/bin/modules
mkdir -p $m
lib=$m/libXDocSourceArchiveFuzz.a  # the last one built
stale() { [ ! -f "$lib" ] || [ -n "$(find Sources/XDocSource Sources/XDocSourceFetch Sources/XDocSourceArchive Sources/XDSSystem Sources/CXattr Sources/CArchive Sources/CPlist Sources/CZlib Sources/CLibraryLoader Fuzz/build_xdocsource.sh -newer "$lib" -type f | head -1)" ]; }
# module NAME: one instrumented module from Sources/NAME.
module() {
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g -package-name xds -enable-testing \
    -module-name "$1" -emit-module -emit-module-path "$m/$1.swiftmodule" \
    -emit-library -static -o "$m/lib$1Fuzz.a" \
    -I $m -I $m/CXattr -I $m/CPlist -I $m/CZlib -I $m/CArchive \
    $(find "Sources/$1" -name '*.swift' | sort)
}
if stale; then
  swiftc -sanitize=address -parse-as-library -O -g -package-name xds \
    -module-name XDSSystem -emit-module -emit-module-path $m/XDSSystem.swiftmodule \
    -emit-library -static -o $m/libXDSSystem.a Sources/XDSSystem/*.swift
  sh Fuzz/build_c.sh CXattr CPlist CZlib CArchive >/dev/null
  module XDocSource
  module XDocSourceFetch
  module XDocSourceArchive
fi
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -package-name xds \
  -module-name "${name}Fuzz" \
  -I $m -I $m/CXattr -I $m/CPlist -I $m/CZlib -I $m/CArchive \
  -L $m -lXDocSourceArchiveFuzz -lXDocSourceFetchFuzz -lXDocSourceFuzz -lXDSSystem \
  "Fuzz/$name/FuzzEntry.swift" \
  $m/CXattr.o $m/CArchive.o $m/CPlist.o $m/CZlib.o $m/CLibraryLoader.o -lswiftSynchronization \
  -o "Fuzz/bin/$name"
