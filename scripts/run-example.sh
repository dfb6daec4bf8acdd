#!/bin/sh
# Builds Examples/ and runs it against the repository's appInfo.json and img/, served over http
# on 127.0.0.1 by Python's http.server on a free port. Prints the example's output; exits
# non-zero when the build or the run fails.
set -eu
cd "$(dirname "$0")/.."
swift build --package-path Examples >/dev/null
scratch=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory . >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$scratch"' EXIT INT TERM
# Wait for the server (bounded): at most 10 s.
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 100 ] || { echo "example: the test server did not start" >&2; exit 1; }; sleep 0.1
done
XDG_CACHE_HOME="$scratch/xdg" Examples/.build/debug/xds-example "$scratch" "http://127.0.0.1:$port/appInfo.json"
