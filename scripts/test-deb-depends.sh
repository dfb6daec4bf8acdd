#!/bin/sh
# Checks that scripts/make-deb.sh names the libplist package of the system it runs on, on a
# system it cannot otherwise see here: Debian 13, whose libplist (2.3+ series) has the soname
# libplist-2.0.so.4 and the package libplist-2.0-4, where Debian 12 has libplist-2.0.so.3 in
# libplist3. In a private mount namespace (nothing outside it changes: the dpkg database is a
# copy, the library folder an overlay, the loader's cache a file of its own) it installs a
# stand-in package libplist-2.0-4 2.6.0-1 holding a library with that soname, and runs
# make-deb.sh on a small binary that names the sonames the loaders open, both libplist ones:
#   with libplist3 and libplist-2.0-4 installed: "libplist-2.0-4 (>= 2.6.0) | libplist3 (>= …)";
#   with libplist-2.0-4 alone (libplist3 taken out of the copy): "libplist-2.0-4 (>= 2.6.0)".
# Needs root, unshare, overlayfs, cc and libplist3 installed (Debian 12); exits 77 (a skip,
# with the reason) where one is missing. Run by scripts/test-deb.sh.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
skip() { echo "$1"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root"
for tool in unshare cc dpkg-deb ldconfig python3; do
  command -v "$tool" >/dev/null || PATH=$PATH:/sbin:/usr/sbin command -v "$tool" >/dev/null || skip "needs $tool"
done
PATH=$PATH:/sbin:/usr/sbin
old=$(ldconfig -p | awk '$1 == "libplist-2.0.so.3" && $NF ~ /^\// { print $NF; exit }')
[ -n "$old" ] || skip "libplist-2.0.so.3 (Debian 12's libplist3) is not installed here"
! ldconfig -p | grep -q 'libplist-2\.0\.so\.4 ' || skip "libplist-2.0.so.4 is installed here already (make-deb's own check covers it)"
dpkg-query -W -f='${Status}' libplist3 2>/dev/null | grep -q "ok installed" || skip "libplist3 is not installed from a package"
old_version=$(dpkg-query -W -f='${Version}' libplist3 | sed 's/-[^-]*$//')
libdir=$(dirname "$(readlink -f "$old")")
arch=$(dpkg --print-architecture)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo 'int plist_new_dict(void) { return 0; }' > plist.c
mkdir -p pkg/DEBIAN "pkg$libdir"
cc -shared -fPIC -Wl,-soname,libplist-2.0.so.4 -o "pkg$libdir/libplist-2.0.so.4.6.0" plist.c
ln -s libplist-2.0.so.4.6.0 "pkg$libdir/libplist-2.0.so.4"
cat > pkg/DEBIAN/control <<CONTROL
Package: libplist-2.0-4
Version: 2.6.0-1
Architecture: $arch
Maintainer: xds tests <tests@xds.invalid>
Multi-Arch: same
Description: stand-in for libplist 2.6 (soname libplist-2.0.so.4), for a test
CONTROL
dpkg-deb --root-owner-group -b pkg libplist-2.0-4.deb >/dev/null
# The sonames as the loaders' tables hold them (make-deb reads them from the binary).
cat > xds.c <<'C'
#include <stdio.h>
static const char *const names[] = {"libplist-2.0.so.4", "libplist-2.0.so.3", "libplist-2.0.so",
    "libz.so.1", "libdeflate.so.0", "libarchive.so.13", "libcurl.so.4", "libcurl-gnutls.so.4"};
int main(int argc, char **argv) { (void)argv; puts(names[argc % 8]); return 0; }
C
mkdir -p stage/usr/bin stage/usr/share/man/man1
cc -O1 -o stage/usr/bin/xds xds.c
echo '.Dd November 24, 2026' > stage/usr/share/man/man1/xds.1
cp -a stage stage-alone
cp -a /var/lib/dpkg dpkg
mkdir -p upper overlay-work
unshare -m sh -c '
  set -e
  mount --make-rprivate /
  mount --bind "$1/dpkg" /var/lib/dpkg
  mount -t overlay overlay -o "lowerdir=$2,upperdir=$1/upper,workdir=$1/overlay-work" "$2"
  dpkg --log=/dev/null --no-triggers -i "$1/libplist-2.0-4.deb" >/dev/null
  ldconfig -X -C "$1/cache-both"; mount --bind "$1/cache-both" /etc/ld.so.cache
  sh "$3/scripts/make-deb.sh" "$1/stage" "$1/out" >/dev/null
  # Debian 13: libplist3 gone from the library folder (the overlay) and the database (the copy).
  rm -f "$2"/libplist-2.0.so.3 "$2"/libplist-2.0.so.3.*
  python3 -c "
p = \"/var/lib/dpkg/status\"; s = open(p).read()
open(p, \"w\").write(\"\n\n\".join(b for b in s.split(\"\n\n\") if not b.startswith(\"Package: libplist3\n\")))"
  rm -f /var/lib/dpkg/info/libplist3.* /var/lib/dpkg/info/libplist3:*
  ldconfig -X -C "$1/cache-alone"; mount --bind "$1/cache-alone" /etc/ld.so.cache
  sh "$3/scripts/make-deb.sh" "$1/stage-alone" "$1/out" >/dev/null
' sh "$work" "$libdir" "$repo"
both=$(sed -n 's/^Depends: //p' stage/DEBIAN/control)
alone=$(sed -n 's/^Depends: //p' stage-alone/DEBIAN/control)
echo "both installed: Depends: $both"
echo "libplist-2.0-4 alone: Depends: $alone"
status=0
echo "$both" | tr ',' '\n' | sed 's/^ *//' | grep -qxF "libplist-2.0-4 (>= 2.6.0) | libplist3 (>= $old_version)" ||
  { echo "expected the alternatives libplist-2.0-4 (>= 2.6.0) | libplist3 (>= $old_version)"; status=1; }
echo "$alone" | tr ',' '\n' | sed 's/^ *//' | grep -qxF "libplist-2.0-4 (>= 2.6.0)" ||
  { echo "expected libplist-2.0-4 (>= 2.6.0)"; status=1; }
echo "$alone" | grep -q libplist3 && { echo "libplist3 named though not installed"; status=1; }
exit $status
