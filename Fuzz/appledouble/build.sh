#!/bin/sh
# Builds the libFuzzer target for the AppleDouble parser and writer into Fuzz/bin/appledouble.
# XDSSystem (big-endian reads) is built first as a module of its own; the parser and the pure
# writer (no file system calls) are compiled in directly (no SwiftPM).
set -eu
cd "$(dirname "$0")/../.."
mkdir -p Fuzz/bin/modules
swiftc -sanitize=address -parse-as-library -O -g -package-name xds \
  -module-name XDSSystem -emit-module -emit-module-path Fuzz/bin/modules/XDSSystem.swiftmodule \
  -emit-library -static -o Fuzz/bin/modules/libXDSSystem.a \
  Sources/XDSSystem/*.swift
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -package-name xds \
  -module-name AppleDoubleFuzz -I Fuzz/bin/modules -L Fuzz/bin/modules -lXDSSystem \
  Sources/XDocSource/Stores/AppleDouble.swift \
  Sources/XDocSource/Stores/AppleDoubleWriter.swift \
  Fuzz/appledouble/FuzzEntry.swift \
  -o Fuzz/bin/appledouble
