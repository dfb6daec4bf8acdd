#!/bin/sh
# Fails when code the build or the tests use names a path outside the repository (SPEC §7: a
# clone must build and test on its own). Checked: source, script and C files under Sources/,
# Tests/ and scripts/, Package.swift, and the Makefile's recipes except `bench` and `fuzz-*`
# (benchmarks and fuzz seeds may use a sibling folder when it is there). Prose (README, licence
# notes) is not checked: a fixture's note may say in words where the fixture came from.
#
#   sh scripts/check-self-contained.sh        (from anywhere; exit 1 and one line a finding)
set -eu
cd "$(dirname "$0")/.."

# A sibling folder by relative path (../shared, os.path.join(here, "..", "shared")), this
# machine's work folders, the old override variable, or an absolute path into a home folder.
pattern='\.\./shared|"\.\.", *"shared"|/work/|XDS_SHARED|["'"'"']/(home|Users|root|mnt|srv)/'

found=$(
  {
    find Sources Tests scripts -type f \( -name '*.swift' -o -name '*.py' -o -name '*.sh' \
      -o -name '*.c' -o -name '*.h' -o -name '*.modulemap' \) ! -name check-self-contained.sh \
      -exec grep -nHE "$pattern" {} + || true
    grep -nHE "$pattern" Package.swift || true
    # Makefile: every line but the recipes of bench and fuzz-* targets.
    awk -v pat="$pattern" '
      /^[A-Za-z0-9_. -]+:([^=]|$)/ { skip = ($1 ~ /^(bench|setup-bench|fuzz-)/) }
      /^\t/ && skip { next }
      $0 ~ pat { printf "Makefile:%d:%s\n", NR, $0 }' Makefile
  }
)
if [ -n "$found" ]; then
  echo "$found" | sed 's/^/self-contained: /' >&2
  echo "self-contained: the lines above name a path outside the repository; a lone clone must build and test (SPEC §7). Put fixtures under Tests/Fixtures and find them relative to the source file." >&2
  exit 1
fi
