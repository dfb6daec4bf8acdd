#!/bin/sh
# Builds the Debian package from a staged `make install DESTDIR=STAGE PREFIX=/usr`.
# Usage: make-deb.sh STAGE OUTDIR  → OUTDIR/xds_VERSION_ARCH.deb (path printed).
# The control file names the packages of the libraries installed here (see "Dependencies").
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

# The changelog, in Debian's format (packaging/changelog; dpkg-parsechangelog reads it). xds is
# packaged by its own authors, so the package is native (no Debian revision in its version) and
# the file is changelog.gz (changelog.Debian.gz is for a package of someone else's release).
# Its first entry must be this version: a release adds its entry there.
changelog_version=$(sed -n '1s/^xds (\([^)]*\)).*/\1/p' packaging/changelog)
[ "$changelog_version" = "$version" ] || {
  echo "make-deb: packaging/changelog begins with ${changelog_version:-no entry}, not $version: add an entry for $version" >&2; exit 1; }
gzip -9n < packaging/changelog > "$stage/usr/share/doc/xds/changelog.gz"
chmod 644 "$stage/usr/share/doc/xds/changelog.gz"

# Dependencies, from what is installed on this machine (so the package names follow the
# release: libplist3 on Debian 12, libplist-2.0-4 on Debian 13, libcurl4t64 where the t64
# libraries are): the package that owns the file the dynamic loader would open, at least the
# version installed here (its upstream part).
#  - Linked libraries (glibc, libstdc++): each file ldd resolves.
#  - Libraries opened with dlopen: the sonames the binary itself names (the C loaders' tables,
#    e.g. libplist-2.0.so.4 and libplist-2.0.so.3), looked up in the loader's cache (ldconfig
#    -p, entries of the binary's own ABI). The sonames of one library (the letters after
#    "lib": libcurl.so.4 and libcurl-gnutls.so.4 are both libcurl) are alternatives: each one
#    installed here becomes "a | b". libarchive (archives in `show`) and libcurl (`icon`
#    requests) are Recommends: without them every other command works. The rest are Depends.
PATH=$PATH:/sbin:/usr/sbin
binary=$stage/usr/bin/xds
optional="libarchive libcurl"

# package_of FILE → the installed package owning FILE (arch-qualified when dpkg says so), or
# nothing. Tries the path as given, its target, and the other side of the merged /usr.
package_of() {
  real=$(readlink -f "$1")
  for p in "$1" "$real" "${real#/usr}" "/usr$real"; do
    owner=$(dpkg -S "$p" 2>/dev/null | grep -v '^diversion' | head -1 | sed 's/: .*//; s/,.*//')
    [ -n "$owner" ] && { echo "$owner"; return; }
  done
  return 0
}
# dependency PACKAGE → "name (>= upstream version)".
dependency() {
  installed=$(dpkg-query -W -f='${Version}' "$1" | sed 's/-[^-]*$//')
  printf '%s (>= %s)' "${1%%:*}" "$installed"
}

linked=$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
[ -n "$linked" ] || { echo "make-deb: ldd found no library in $binary" >&2; exit 1; }
libc=$(echo "$linked" | grep '/libc\.so\.' | head -1)
abi=$(ldconfig -p | awk -v p="$libc" '$NF == p { sub(/^[^(]*\(/, ""); sub(/\).*/, ""); print; exit }')
[ -n "$abi" ] || { echo "make-deb: $libc is not in the loader's cache (ldconfig -p)" >&2; exit 1; }
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
opened=$(strings -a "$binary" | grep -oE 'lib[A-Za-z0-9_+-]+(\.[0-9]+)*\.so\.[0-9]+$' | awk '!seen[$0]++' |
  { grep -vxF "$needed" || true; })
[ -n "$opened" ] || { echo "make-deb: $binary names no library it opens (lib*.so.N)" >&2; exit 1; }

depends=""; recommends=""
for lib in $linked; do
  pkg=$(package_of "$lib")
  [ -n "$pkg" ] || { echo "make-deb: $lib (linked) belongs to no installed package" >&2; exit 1; }
  depends="$depends
$(dependency "$pkg")"
done
for group in $(echo "$opened" | sed 's/^\(lib[a-z]*\).*/\1/' | awk '!seen[$0]++'); do
  alternatives=""
  for soname in $(echo "$opened" | grep "^$group"); do
    [ "$(echo "$soname" | sed 's/^\(lib[a-z]*\).*/\1/')" = "$group" ] || continue
    path=$(ldconfig -p | awk -v n="$soname" -v abi="($abi)" '$1 == n && index($0, abi) && $NF ~ /^\// { print $NF; exit }')
    [ -n "$path" ] || continue
    pkg=$(package_of "$path")
    if [ -z "$pkg" ]; then echo "make-deb: note: $path belongs to no installed package; not a dependency" >&2; continue; fi
    case " $alternatives " in *" | $(dependency "$pkg") | "*) continue ;; esac
    alternatives="$alternatives | $(dependency "$pkg")"
  done
  alternatives=${alternatives# | }
  sonames=$(echo "$opened" | grep "^$group" | tr '\n' ' ')
  if [ -z "$alternatives" ]; then
    case " $optional " in
    *" $group "*) echo "make-deb: note: none of $sonames is installed from a package; not recommended" >&2; continue ;;
    *) echo "make-deb: none of $sonames (opened by xds) is installed from a package" >&2; exit 1 ;;
    esac
  fi
  case " $optional " in
  *" $group "*) recommends="$recommends
$alternatives" ;;
  *) depends="$depends
$alternatives" ;;
  esac
done
# One line each, sorted, no duplicate (libc6 from libc and libm).
field() { echo "$1" | sed '/^$/d' | sort -u | awk 'NR > 1 { printf ", " } { printf "%s", $0 }'; }
depends=$(field "$depends"); recommends=$(field "$recommends")
# The maintainer: DEB_MAINTAINER='Name <address>' (make deb DEB_MAINTAINER=…), else a
# placeholder whose domain is reserved never to exist (RFC 2606 .invalid).
maintainer=${DEB_MAINTAINER:-xds authors <maintainers@xds.invalid>}
install -d "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: xds
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends${recommends:+
Recommends: $recommends}
Suggests: python3-nautilus
Section: utils
Priority: optional
Homepage: https://github.com/palmin/x-document-source
Description: read and write the x-document-source attribute, fetch and mask app icons
 xds reads, writes and removes the x-document-source extended attribute that
 iOS and macOS document providers use to say which app a file came from, in
 every store it is found in (extended attributes, Samba streams, AppleDouble
 sidecars, zip and tar archives), fetches the app's icon from its appInfo.json
 and masks it to the app-icon shape, and publishes an app's icons. With
 python3-nautilus, GNOME Files shows where files came from in list-view
 columns, emblems and the properties window.
CONTROL

# The files' checksums (dpkg --verify, debsums), sorted so that the package is reproducible.
(cd "$stage" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/xds_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "deb: $deb"
