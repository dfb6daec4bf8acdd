#!/bin/sh
# Builds the .icns container fuzz target into Fuzz/bin/icns: the IconMask ICNS and PNG sources
# and RGBAImage.swift compiled directly with the entry point, under libFuzzer + ASan.
# Seeds (corpus/, made by make_seeds.sh with scripts/make_icns.py): PNG elements at several
# sizes, a TOC, legacy RLE/mask/ARGB elements, a JPEG 2000-looking ic10, a CgBI PNG element.
# -D FUZZING turns off the PNG CRC check so that mutations reach the decoder.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p Fuzz/bin
c=$(sh Fuzz/build_c.sh CZlib CDeflate)
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name ICNSFuzz -use-ld=lld -D FUZZING $c \
  Sources/IconMask/ICNS/*.swift Sources/IconMask/PNG/*.swift Sources/IconMask/RGBAImage.swift \
  Fuzz/icns/FuzzICNS.swift \
  -o Fuzz/bin/icns
