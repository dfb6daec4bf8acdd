#!/bin/sh
# Checks .build/deb/xds_*.deb: what lintian says of it (nothing, at its default levels), that the
# man page renders without a warning, that it holds the files `make install` installs, and that
# make-deb.sh names libplist-2.0-4 on a libplist-2.0.so.4 system (test-deb-depends.sh); then, as
# root, installs it on this machine, checks what a user gets, removes it and checks that nothing
# is left. Usage: test-deb.sh [INSTALL_DIR], INSTALL_DIR a `make install DESTDIR=INSTALL_DIR
# PREFIX=/usr` to compare with (make test-deb makes one). Without root the install part is
# skipped (said so). Prints "deb: N passed, M failed" and exits 1 on any failure.
set -u
cd "$(dirname "$0")/.."
installed_tree=${1:-}
deb=$(ls .build/deb/xds_*.deb 2>/dev/null | tail -1)
[ -n "$deb" ] || { echo "test-deb: no package in .build/deb (run make deb)" >&2; exit 1; }
passed=0; failed=0
check() { # check NAME COMMAND...
  name=$1; shift
  if out=$("$@" 2>&1); then passed=$((passed+1)); echo "test-deb: ok: $name"
  else failed=$((failed+1)); echo "test-deb: FAILED: $name"; echo "$out" | sed 's/^/    /'; fi
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dpkg-deb -x "$deb" "$scratch/deb"

# lintian at its default levels (errors and warnings): no tag at all. Its own notices (running
# as root) go to stderr and are not tags.
lintian_clean() {
  command -v lintian >/dev/null || { echo "lintian is not installed (make setup-deb)"; return 1; }
  tags=$(lintian "$1" 2>/dev/null); status=$?
  [ -z "$tags" ] && [ $status -eq 0 ] && return 0
  echo "lintian $1 (status $status):"; echo "$tags"; return 1
}
check "lintian: no error, no warning" lintian_clean "$deb"

# The man page through man(1) as lintian's groff-message check runs it and as a user reads it:
# nothing on stderr (groff's and mdoc's warnings go there, before the page).
man_silent() { # man_silent FILE
  command -v man >/dev/null || { echo "man is not installed (make setup-deb)"; return 1; }
  LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$1" >/dev/null 2>"$scratch/man.err" || return 1
  MANWIDTH=80 man -l "$1" >"$scratch/man.out" 2>>"$scratch/man.err" || return 1
  [ -s "$scratch/man.err" ] && { head -20 "$scratch/man.err"; return 1; }
  grep -q "EXIT STATUS" "$scratch/man.out" || { echo "no EXIT STATUS in the rendered page"; return 1; }
}
check "the package's man page renders with no warning" man_silent "$scratch/deb/usr/share/man/man1/xds.1.gz"

# The package holds what `make install PREFIX=/usr` installs, byte for byte and mode for mode,
# plus what Debian adds: /usr/share/doc/xds and the man page gzipped.
same_files() { # same_files INSTALL_DIR
  (cd "$1" && find . ! -type d | sort) > "$scratch/install.list"
  (cd "$scratch/deb" && find . ! -type d | sort) > "$scratch/deb.list"
  sed 's,^\(\./usr/share/man/man1/xds\.1\)$,\1.gz,' "$scratch/install.list" > "$scratch/expected.list"
  grep -v '^\./usr/share/doc/xds/' "$scratch/deb.list" > "$scratch/deb-core.list"
  diff -u "$scratch/expected.list" "$scratch/deb-core.list" > "$scratch/list.diff" ||
    { echo "make install (-) and the package (+) differ:"; cat "$scratch/list.diff"; return 1; }
  grep -q '^\./usr/share/doc/xds/copyright$' "$scratch/deb.list" || { echo "no copyright file"; return 1; }
  status=0
  while read -r f; do
    case $f in
    ./usr/share/man/man1/xds.1) gunzip -c "$scratch/deb/$f.gz" | cmp -s - "$1/$f" || { echo "differs: $f"; status=1; }
      mode=$(stat -c %a "$scratch/deb/$f.gz") ;;
    *) cmp -s "$scratch/deb/$f" "$1/$f" || { echo "differs: $f"; status=1; }
      mode=$(stat -c %a "$scratch/deb/$f") ;;
    esac
    [ "$mode" = "$(stat -c %a "$1/$f")" ] || { echo "mode $mode in the package: $f"; status=1; }
  done < "$scratch/install.list"
  return $status
}
if [ -n "$installed_tree" ]; then
  check "the package has the files make install installs (and /usr/share/doc/xds)" same_files "$installed_tree"
fi

# make-deb on a Debian 13 as far as libplist goes (libplist-2.0.so.4 in libplist-2.0-4), in a
# private mount namespace (scripts/test-deb-depends.sh; skipped where it cannot run).
out=$(sh scripts/test-deb-depends.sh 2>&1); status=$?
case $status in
0) passed=$((passed+1)); echo "test-deb: ok: make-deb names libplist-2.0-4 where libplist-2.0.so.4 is installed" ;;
77) echo "test-deb: skipped: make-deb with libplist-2.0.so.4: $out" ;;
*) failed=$((failed+1)); echo "test-deb: FAILED: make-deb names libplist-2.0-4 where libplist-2.0.so.4 is installed"
   echo "$out" | sed 's/^/    /' ;;
esac

if [ "$(id -u)" -ne 0 ]; then
  echo "test-deb: install skipped: installing a package needs root"
elif dpkg-query -W -f='${Status}' xds 2>/dev/null | grep -q "ok installed"; then
  echo "test-deb: install skipped: a package named xds is already installed here; not touching it"
else
  check "dpkg -i" dpkg -i "$deb"
  files=$(dpkg -L xds 2>/dev/null | while read -r f; do [ -f "$f" ] && echo "$f"; done)
  commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  check "xds --version names the version and commit" sh -c "/usr/bin/xds --version | grep -q '(commit $commit'"
  # Depends names the package of the libplist this machine has (libplist3 for libplist-2.0.so.3
  # on Debian 12, libplist-2.0-4 for libplist-2.0.so.4), whichever soname it is.
  depends_on_libplist() {
    lib=$(ldconfig -p | awk '$1 ~ /^libplist-2\.0\.so\.[0-9]+$/ && $NF ~ /^\// { print $NF; exit }')
    [ -n "$lib" ] || { echo "no libplist-2.0.so.N in ldconfig -p"; return 1; }
    pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1)
    depends=$(dpkg-query -W -f='${Depends}' xds)
    echo "$depends" | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' | grep -qx "$pkg" ||
      { echo "Depends: $depends"; echo "does not name $pkg (owner of $lib)"; return 1; }
  }
  check "Depends names the installed libplist's package" depends_on_libplist
  check "man -w xds" sh -c 'man -w xds | grep -q /usr/share/man/man1/xds.1'
  # A user's `man xds`: the page on stdout, nothing on stderr (the terminal) before it.
  man_xds_silent() {
    MANWIDTH=80 man xds >"$scratch/man-xds.out" 2>"$scratch/man-xds.err" || return 1
    [ -s "$scratch/man-xds.err" ] && { head -20 "$scratch/man-xds.err"; return 1; }
    grep -q "EXIT STATUS" "$scratch/man-xds.out" || { echo "no EXIT STATUS in man xds"; return 1; }
  }
  check "man xds renders with the exit codes, nothing on stderr" man_xds_silent
  check "bash completion offers the subcommands" bash -c '
    . /usr/share/bash-completion/bash_completion 2>/dev/null || true
    . /usr/share/bash-completion/completions/xds
    COMP_WORDS=(xds sh); COMP_CWORD=1; COMP_LINE="xds sh"; COMP_POINT=6
    _xds >/dev/null 2>&1
    printf "%s\n" "${COMPREPLY[@]}" | grep -qx show'
  check "zsh and fish completions installed" test -f /usr/share/zsh/vendor-completions/_xds -a -f /usr/share/fish/vendor_completions.d/xds.fish
  # The GNOME Files extension where nautilus-python looks, calling the installed binary.
  check "GNOME Files extension installed, calling /usr/bin/xds" \
    grep -qx 'INSTALLED_XDS = "/usr/bin/xds"' /usr/share/nautilus-python/extensions/xds_nautilus.py
  check "dpkg -r" dpkg -r xds
  left=""
  for f in $files; do [ -e "$f" ] && left="$left $f"; done
  check "nothing left after removal" sh -c "[ -z '$left' ] || { echo 'left:$left'; exit 1; }"
  check "package state" sh -c '! dpkg-query -W -f="\${Status}" xds 2>/dev/null | grep -q "ok installed"'
  dpkg -P xds >/dev/null 2>&1 || true
fi
echo "deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
