#!/bin/sh
# Builds Fuzz/bin/archive (see Fuzz/build_xdocsource.sh).
exec sh "$(dirname "$0")/../build_xdocsource.sh" archive
