#!/bin/sh
# Builds the Debian package from a staged `make install DESTDIR=STAGE PREFIX=/usr`.
# Usage: make-deb.sh STAGE OUTDIR  → OUTDIR/xds_VERSION_ARCH.deb (path printed).
#
# Runtime dependencies: the libraries the binary links (libplist, libdeflate, zlib, glibc) are
# Depends; libarchive (archives in `show`) and libcurl (`icon` requests) are loaded with dlopen
# only when needed, so they are Recommends: without them every other command works.
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

# Versions: what Debian 12 ships (libplist 2.2, libdeflate 1.14, zlib 1.2.13, glibc 2.36).
install -d "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: xds
Version: $version
Architecture: $arch
Maintainer: xds authors <xds@invalid>
Installed-Size: $size
Depends: libc6 (>= 2.34), libplist3 (>= 2.2.0), libdeflate0 (>= 1.14), zlib1g (>= 1:1.2.11)
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
