#!/bin/sh
# Builds the libFuzzer target for DocumentSource(propertyList:) into Fuzz/bin/plist.
# The XDocSource property-list sources are compiled in directly (no SwiftPM), with the
# CPlist module map for libplist.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p Fuzz/bin
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld \
  -module-name XDocSourceFuzz \
  -I Sources/CPlist \
  Sources/XDocSource/PropertyList/*.swift \
  Sources/XDocSource/DocumentSource.swift \
  Fuzz/plist/FuzzEntry.swift \
  -lplist-2.0 \
  -o Fuzz/bin/plist
