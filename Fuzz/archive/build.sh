#!/bin/sh
# Builds the libFuzzer target for the archive scanner into Fuzz/bin/archive.
# XDSSystem is built first as a module of its own (as for appledouble), CXattr's C file is
# compiled with clang and given a module map, and all of Sources/XDocSource is compiled in
# directly (no SwiftPM), linked with libplist and zlib (zips are read by our own reader;
# libarchive, for tars, is loaded at run time).
set -eu
cd "$(dirname "$0")/../.."
mkdir -p Fuzz/bin/modules/CXattr
swiftc -sanitize=address -parse-as-library -O -g -package-name xds \
  -module-name XDSSystem -emit-module -emit-module-path Fuzz/bin/modules/XDSSystem.swiftmodule \
  -emit-library -static -o Fuzz/bin/modules/libXDSSystem.a \
  Sources/XDSSystem/*.swift
clang -fsanitize=address -O1 -g -c -I Sources/CXattr/include Sources/CXattr/cxattr.c \
  -o Fuzz/bin/modules/cxattr.o
# libarchive is loaded with dlopen by CArchive's forwarding functions, as in xds itself.
clang -fsanitize=address -O1 -g -c -I Sources/CArchive/include Sources/CArchive/carchive.c \
  -o Fuzz/bin/modules/carchive.o
cat > Fuzz/bin/modules/CXattr/module.modulemap <<MAP
module CXattr {
    header "$(pwd)/Sources/CXattr/include/cxattr.h"
    export *
}
MAP
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -package-name xds \
  -module-name XDocSourceArchiveFuzz \
  -I Fuzz/bin/modules -I Fuzz/bin/modules/CXattr -I Sources/CPlist -I Sources/CZlib -I Sources/CArchive/include \
  -L Fuzz/bin/modules -lXDSSystem \
  $(find Sources/XDocSource -name '*.swift' | sort) \
  Fuzz/archive/FuzzEntry.swift \
  Fuzz/bin/modules/cxattr.o Fuzz/bin/modules/carchive.o -lplist-2.0 -lz \
  -o Fuzz/bin/archive
