#!/bin/sh
# Builds a libFuzzer target over all of Sources/XDocSource (no SwiftPM):
#   Fuzz/build_xdocsource.sh NAME   → Fuzz/bin/NAME from Fuzz/NAME/FuzzEntry.swift
# XDocSource is compiled once into Fuzz/bin/modules/libXDocSourceFuzz.a (instrumented,
# -enable-testing so entries reach internal functions with @testable import), and rebuilt only
# when a source is newer; each target then compiles just its entry. XDSSystem is a module of
# its own, CXattr and CArchive's C files go through clang (libarchive is loaded at run time,
# as in xds); linked with libplist and zlib; address sanitizer on.
set -eu
name=$1
cd "$(dirname "$0")/.."
m=Fuzz/bin/modules
mkdir -p $m/CXattr
lib=$m/libXDocSourceFuzz.a
stale() { [ ! -f "$lib" ] || [ -n "$(find Sources/XDocSource Sources/XDSSystem Sources/CXattr Sources/CArchive Fuzz/build_xdocsource.sh -newer "$lib" -type f | head -1)" ]; }
if stale; then
  swiftc -sanitize=address -parse-as-library -O -g -package-name xds \
    -module-name XDSSystem -emit-module -emit-module-path $m/XDSSystem.swiftmodule \
    -emit-library -static -o $m/libXDSSystem.a Sources/XDSSystem/*.swift
  clang -fsanitize=address -O1 -g -c -I Sources/CXattr/include Sources/CXattr/cxattr.c -o $m/cxattr.o
  clang -fsanitize=address -O1 -g -c -I Sources/CArchive/include Sources/CArchive/carchive.c -o $m/carchive.o
  cat > $m/CXattr/module.modulemap <<MAP
module CXattr {
    header "$(pwd)/Sources/CXattr/include/cxattr.h"
    export *
}
MAP
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g -package-name xds -enable-testing \
    -module-name XDocSource -emit-module -emit-module-path $m/XDocSource.swiftmodule \
    -emit-library -static -o "$lib" \
    -I $m -I $m/CXattr -I Sources/CPlist -I Sources/CZlib -I Sources/CArchive/include \
    $(find Sources/XDocSource -name '*.swift' | sort)
fi
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -package-name xds \
  -module-name "${name}Fuzz" \
  -I $m -I $m/CXattr -I Sources/CPlist -I Sources/CZlib -I Sources/CArchive/include \
  -L $m -lXDocSourceFuzz -lXDSSystem \
  "Fuzz/$name/FuzzEntry.swift" \
  $m/cxattr.o $m/carchive.o -lplist-2.0 -lz -lswiftSynchronization \
  -o "Fuzz/bin/$name"
