#!/bin/sh
# Builds the PNG decoder fuzz target into Fuzz/bin/png: the IconMask PNG sources and
# RGBAImage.swift compiled directly with the entry point, under libFuzzer + ASan.
# Seeds (corpus/): small PngSuite files covering every colour type, depth, Adam7, tRNS,
# split IDATs and filters, plus cgbi-6x6.png (a 6×6 premultiplied BGRA CgBI file made with
# Python's zlib raw deflate, two IDATs). -D FUZZING turns off the CRC check so that
# mutations get past the chunk framing.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p Fuzz/bin
c=$(sh Fuzz/build_c.sh CZlib CDeflate)
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name PNGFuzz -use-ld=lld -D FUZZING $c \
  Sources/IconMask/PNG/*.swift Sources/IconMask/RGBAImage.swift Fuzz/png/FuzzPNG.swift \
  -o Fuzz/bin/png
