#!/bin/sh
# Builds a libFuzzer target that compiles all of Sources/XDocSource in directly (no SwiftPM):
#   Fuzz/build_xdocsource.sh NAME   → Fuzz/bin/NAME from Fuzz/NAME/FuzzEntry.swift
# XDSSystem is built first as a module of its own, CXattr and CArchive's C files with clang
# (libarchive is loaded at run time, as in xds), linked with libplist; address sanitizer on.
set -eu
name=$1
cd "$(dirname "$0")/.."
mkdir -p Fuzz/bin/modules/CXattr
swiftc -sanitize=address -parse-as-library -O -g -package-name xds \
  -module-name XDSSystem -emit-module -emit-module-path Fuzz/bin/modules/XDSSystem.swiftmodule \
  -emit-library -static -o Fuzz/bin/modules/libXDSSystem.a \
  Sources/XDSSystem/*.swift
clang -fsanitize=address -O1 -g -c -I Sources/CXattr/include Sources/CXattr/cxattr.c -o Fuzz/bin/modules/cxattr.o
clang -fsanitize=address -O1 -g -c -I Sources/CArchive/include Sources/CArchive/carchive.c -o Fuzz/bin/modules/carchive.o
cat > Fuzz/bin/modules/CXattr/module.modulemap <<MAP
module CXattr {
    header "$(pwd)/Sources/CXattr/include/cxattr.h"
    export *
}
MAP
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -package-name xds \
  -module-name "XDocSource${name}Fuzz" \
  -I Fuzz/bin/modules -I Fuzz/bin/modules/CXattr -I Sources/CPlist -I Sources/CArchive/include \
  -L Fuzz/bin/modules -lXDSSystem \
  $(find Sources/XDocSource -name '*.swift' | sort) \
  "Fuzz/$name/FuzzEntry.swift" \
  Fuzz/bin/modules/cxattr.o Fuzz/bin/modules/carchive.o -lplist-2.0 \
  -o "Fuzz/bin/$name"
