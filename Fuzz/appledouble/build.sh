#!/bin/sh
# Builds the libFuzzer target for the AppleDouble parser into Fuzz/bin/appledouble.
# The parser is one self-contained source file, compiled in directly (no SwiftPM).
set -eu
cd "$(dirname "$0")/../.."
mkdir -p Fuzz/bin
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld \
  -module-name AppleDoubleFuzz \
  Sources/XDocSource/Stores/AppleDouble.swift \
  Fuzz/appledouble/FuzzEntry.swift \
  -o Fuzz/bin/appledouble
