#!/bin/sh
# Writes Sources/CBuildInfo/commit.h with the commit being built (`xds --version` prints it).
# The file is rewritten only when its text changes, so an unchanged tree does not relink.
set -eu
cd "$(dirname "$0")/.."
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit="$commit-dirty"
fi
text="#define XDS_COMMIT \"$commit\""
file=Sources/CBuildInfo/commit.h
if [ ! -f "$file" ] || [ "$(cat "$file")" != "$text" ]; then
  printf '%s\n' "$text" > "$file"
fi
