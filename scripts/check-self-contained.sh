#!/bin/sh
# Fails when code names a path outside the repository (SPEC §7: a clone must build, test,
# benchmark and fuzz on its own). Checked: source, script and C files under Sources/, Tests/,
# scripts/, Benchmarks/, Fuzz/ and Examples/, Package.swift, and the whole Makefile. Prose
# (README, licence notes, RESULTS) is not checked: a note may say in words where something came
# from, and a benchmark may still be pointed at an outside corpus with CORPUS=DIR.
#
#   sh scripts/check-self-contained.sh        (from anywhere; exit 1 and one line a finding)
set -eu
cd "$(dirname "$0")/.."

# A sibling folder by relative path (../shared, os.path.join(here, "..", "shared")), this
# machine's work folders, the old override variable, or an absolute path into a home folder.
pattern='\.\./shared|"\.\.", *"shared"|/work/|XDS_SHARED|["'"'"']/(home|Users|root|mnt|srv)/'

found=$(
  {
    find Sources Tests scripts Benchmarks Fuzz Examples \( -name .build -o -path Fuzz/bin -o -path Fuzz/out \) -prune -o -type f \( -name '*.swift' -o -name '*.py' -o -name '*.sh' \
      -o -name '*.c' -o -name '*.h' -o -name '*.modulemap' \) ! -name check-self-contained.sh \
      -exec grep -nHE "$pattern" {} + || true
    grep -nHE "$pattern" Package.swift || true
    grep -nHE "$pattern" Makefile || true
  }
)
if [ -n "$found" ]; then
  echo "$found" | sed 's/^/self-contained: /' >&2
  echo "self-contained: the lines above name a path outside the repository; a lone clone must build and test (SPEC §7). Put fixtures under Tests/Fixtures and find them relative to the source file." >&2
  exit 1
fi
