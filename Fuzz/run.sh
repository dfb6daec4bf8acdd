#!/bin/sh
# Builds and runs one libFuzzer target: Fuzz/run.sh NAME SECONDS
# Each target lives in Fuzz/NAME/: its entry (*.swift, built by Fuzz/build.py from the modules it
# imports, as Package.swift defines them) and corpus/ (seeds).
set -eu
name=$1; seconds=${2:-60}
cd "$(dirname "$0")/.."
python3 Fuzz/build.py "$name"
mkdir -p "Fuzz/out/$name"
# New inputs go to Fuzz/out/NAME (ignored by git); the committed seeds stay read-only.
exec "Fuzz/bin/$name" -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="Fuzz/out/$name/" "Fuzz/out/$name" "Fuzz/$name/corpus"
