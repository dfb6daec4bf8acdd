#!/bin/sh
# Runs the property-list tests against a libplist built from source, with the system's own
# libplist hidden (issue 23: xds must work with libplist 2.2 through 2.7, and Debian 12 has only
# 2.2). Not part of `make test`: it needs root (a private mount namespace) and a libplist build.
#
#   sh scripts/test-libplist-version.sh PREFIX [FILTER]
#
# PREFIX holds the build (PREFIX/lib/libplist-2.0.so.4, PREFIX/bin/plistutil), e.g. from
#   git archive 2.7.0 | tar -x; RELEASE_VERSION=2.7.0 ./autogen.sh --without-cython --prefix=PREFIX
#   make -C libcnary && make -C src install && make -C include install && make -C tools install
# In the namespace, every libplist-2.0.so.* of the system's library folder is removed from view
# (an overlay with whiteouts), /usr/bin/plistutil is PREFIX's, and LD_LIBRARY_PATH=PREFIX/lib
# reaches both the test process and the xds binaries it runs. FILTER defaults to the suites of
# set/show/remove, plist interop and malformed values (and the other property-list suites).
# Build first: swift build --build-tests.
set -eu
prefix=$(cd "$1" && pwd)
filter=${2:-'SetShowRemoveTests|InteropTests|MalformedValueTests|MalformedPlistTests|PlistFuzzCorpusTests|XMLDepthSpellingTests|PlistInteropTests|PropertyListRoundTripTests|PropertyListPrecisionTests|PropertyListTimeTests|OnePassDecodeTests|XMLPlistValueRulesTests|PropertyListDateTests'}
[ -e "$prefix/lib/libplist-2.0.so.4" ] || { echo "no $prefix/lib/libplist-2.0.so.4" >&2; exit 66; }
libdir=$(dirname "$(readlink -f "$(ldconfig -p | awk '/libc\.so\.6 /{print $NF; exit}')")")
exec unshare --mount sh -c '
    set -eu
    scratch=$(mktemp -d)
    mount -t tmpfs tmpfs "$scratch"      # the overlay upper folder may not be on an overlay itself
    mkdir "$scratch/upper" "$scratch/work"
    for f in "$2"/libplist-2.0.so*; do [ -e "$f" ] || [ -L "$f" ] && mknod "$scratch/upper/$(basename "$f")" c 0 0; done
    mount -t overlay overlay -o "lowerdir=$2,upperdir=$scratch/upper,workdir=$scratch/work" "$2"
    mount --bind "$1/bin/plistutil" /usr/bin/plistutil
    ls "$2"/libplist-2.0.so* 2>/dev/null && { echo "libplist still visible" >&2; exit 70; }
    LD_LIBRARY_PATH="$1/lib" ./.build/debug/xds --version | sed -n 2p
    LD_LIBRARY_PATH="$1/lib" swift test --skip-build --filter "$3"
' sh "$prefix" "$libdir" "$filter"
