#!/bin/sh
# Builds the Debian package from a staged `make install DESTDIR=STAGE PREFIX=/usr`.
# Usage: make-deb.sh STAGE OUTDIR  → OUTDIR/xds_VERSION_ARCH.deb (path printed).
#
# Runtime dependencies: the libraries the binary links (glibc, libstdc++) and the ones every
# command may load with dlopen (libplist, libdeflate, zlib) are Depends; libarchive (archives in
# `show`) and libcurl (`icon` requests) are Recommends: without them every other command works.
set -eu
stage=$1; out=$2
cd "$(dirname "$0")/.."
version=$(sed -n 's/^ *static let version = "\(.*\)"$/\1/p' Sources/xds/Support/BuildInfo.swift)
[ -n "$version" ] || { echo "make-deb: no version in Sources/xds/Support/BuildInfo.swift" >&2; exit 1; }
arch=$(dpkg --print-architecture)

# Debian policy: man pages gzip -9n, a copyright file per package.
gzip -9nf "$stage/usr/share/man/man1/xds.1"
install -d "$stage/usr/share/doc/xds"
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: xds"
  echo
  echo "Files: *"
  echo "License: MIT"
  sed 's/^$/./; s/^/ /' LICENSE
} > "$stage/usr/share/doc/xds/copyright"
chmod 644 "$stage/usr/share/doc/xds/copyright"

# Depends: the package of every shared library the binary links (ldd) or always loads (the
# sonames Sources/CPlist, CDeflate and CZlib open), → dpkg -S, at least the version installed
# here (its upstream part).
loaded=$(for soname in libplist-2.0.so.3 libdeflate.so.0 libz.so.1; do
  path=$(ldconfig -p | awk -v n="$soname" '$1 == n && $NF ~ /^\// { print $NF; exit }')
  [ -n "$path" ] || { echo "make-deb: $soname is not installed" >&2; exit 1; }
  echo "$path"
done)
depends=$({ ldd "$stage/usr/bin/xds" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'; echo "$loaded"; } | while read -r lib; do
  real=$(readlink -f "$lib")
  { dpkg -S "$real" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null; } | head -1 | cut -d: -f1
done | sort -u | while read -r pkg; do
  [ -n "$pkg" ] || continue
  version=$(dpkg-query -W -f='${Version}' "$pkg" | sed 's/-[^-]*$//')
  printf '%s (>= %s), ' "$pkg" "$version"
done | sed 's/, $//')
[ -n "$depends" ] || { echo "make-deb: could not find the packages of the linked libraries" >&2; exit 1; }
install -d "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: xds
Version: $version
Architecture: $arch
Maintainer: xds authors <xds@invalid>
Installed-Size: $size
Depends: $depends
Recommends: libarchive13, libcurl4
Section: utils
Priority: optional
Homepage: https://github.com/palmin/x-document-source
Description: read and write the x-document-source attribute, fetch and mask app icons
 xds reads, writes and removes the x-document-source extended attribute that
 iOS and macOS document providers use to say which app a file came from, in
 every store it is found in (extended attributes, Samba streams, AppleDouble
 sidecars, zip and tar archives), fetches the app's icon from its appInfo.json
 and masks it to the app-icon shape, and publishes an app's icons.
CONTROL

mkdir -p "$out"
deb="$out/xds_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "deb: $deb"
