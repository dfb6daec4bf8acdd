#!/bin/sh
# Builds the libFuzzer target for DocumentSource(propertyList:) into Fuzz/bin/plist.
# XDSSystem is built first as a module of its own (as for appledouble); the XDocSource
# property-list sources are compiled in directly (no SwiftPM), with the CPlist module
# (Fuzz/build_c.sh), which loads libplist.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p Fuzz/bin/modules
swiftc -sanitize=address -parse-as-library -O -g -package-name xds \
  -module-name XDSSystem -emit-module -emit-module-path Fuzz/bin/modules/XDSSystem.swiftmodule \
  -emit-library -static -o Fuzz/bin/modules/libXDSSystem.a \
  Sources/XDSSystem/*.swift
c=$(sh Fuzz/build_c.sh CPlist)
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -package-name xds \
  -module-name XDocSourceFuzz $c \
  -I Fuzz/bin/modules -L Fuzz/bin/modules -lXDSSystem \
  Sources/XDocSource/PropertyList/*.swift \
  Sources/XDocSource/DocumentSource.swift Sources/XDocSource/JSON/Base64.swift \
  Fuzz/plist/FuzzEntry.swift \
  -o Fuzz/bin/plist
