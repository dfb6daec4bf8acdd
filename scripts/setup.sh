#!/bin/sh
# Installs missing system packages for xds.
# Usage: setup.sh LABEL APT_PACKAGE... -- BREW_PACKAGE...
# On Debian/Ubuntu as root: apt-get install; not root: print the exact command and stop.
# On macOS: brew install. Elsewhere: say what is needed.
set -eu
label=$1; shift
apt_pkgs=""; brew_pkgs=""; seen_sep=0
for p in "$@"; do
  if [ "$p" = "--" ]; then seen_sep=1; continue; fi
  if [ $seen_sep -eq 0 ]; then apt_pkgs="$apt_pkgs $p"; else brew_pkgs="$brew_pkgs $p"; fi
done

case "$(uname -s)" in
Darwin)
  [ -z "$brew_pkgs" ] && exit 0
  missing=""
  for p in $brew_pkgs; do brew list --versions "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  [ -z "$missing" ] && exit 0
  echo "setup ($label): brew install$missing"
  exec brew install $missing
  ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup ($label): not a Debian system; install the equivalents of:$apt_pkgs" >&2
  exit 0
fi
missing=""
for p in $apt_pkgs; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in *"ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "setup ($label): missing packages; run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
  exit 1
fi
echo "setup ($label): apt-get install -y$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || apt-get update
apt-get install -y -qq $missing >/dev/null
