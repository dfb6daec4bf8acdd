#!/bin/sh
# Installs .build/deb/xds_*.deb on this machine, checks what a user gets, removes it and checks
# that nothing is left. Needs root (dpkg); without it, says so and exits 0 as a skip.
# Prints "deb: N passed, M failed" and exits 1 on any failure.
set -u
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then echo "test-deb: skipped: installing a package needs root"; exit 0; fi
if dpkg-query -W -f='${Status}' xds 2>/dev/null | grep -q "ok installed"; then
  echo "test-deb: skipped: a package named xds is already installed here; not touching it"; exit 0
fi
deb=$(ls .build/deb/xds_*.deb 2>/dev/null | tail -1)
[ -n "$deb" ] || { echo "test-deb: no package in .build/deb (run make deb)" >&2; exit 1; }
passed=0; failed=0
check() { # check NAME COMMAND...
  name=$1; shift
  if out=$("$@" 2>&1); then passed=$((passed+1)); echo "test-deb: ok: $name"
  else failed=$((failed+1)); echo "test-deb: FAILED: $name"; echo "$out" | sed 's/^/    /'; fi
}
check "dpkg -i" dpkg -i "$deb"
files=$(dpkg -L xds 2>/dev/null | while read -r f; do [ -f "$f" ] && echo "$f"; done)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
check "xds --version names the version and commit" sh -c "/usr/bin/xds --version | grep -q '(commit $commit'"
check "man -w xds" sh -c 'man -w xds | grep -q /usr/share/man/man1/xds.1'
check "man page renders with the exit codes" sh -c 'MANWIDTH=100 man xds 2>/dev/null | grep -q "EXIT STATUS\|Exit status\|exit status"'
check "bash completion offers the subcommands" bash -c '
  . /usr/share/bash-completion/bash_completion 2>/dev/null || true
  . /usr/share/bash-completion/completions/xds
  COMP_WORDS=(xds sh); COMP_CWORD=1; COMP_LINE="xds sh"; COMP_POINT=6
  _xds >/dev/null 2>&1
  printf "%s\n" "${COMPREPLY[@]}" | grep -qx show'
check "zsh and fish completions installed" test -f /usr/share/zsh/vendor-completions/_xds -a -f /usr/share/fish/vendor_completions.d/xds.fish
check "dpkg -r" dpkg -r xds
left=""
for f in $files; do [ -e "$f" ] && left="$left $f"; done
check "nothing left after removal" sh -c "[ -z '$left' ] || { echo 'left:$left'; exit 1; }"
check "package state" sh -c '! dpkg-query -W -f="\${Status}" xds 2>/dev/null | grep -q "ok installed"'
dpkg -P xds >/dev/null 2>&1 || true
echo "deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
