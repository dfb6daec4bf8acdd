#!/bin/sh
# `xds icon` in one run (part of make bench; also runs alone): the project's own appInfo.json and
# img/ served by the loopback test server (Tests/Support/http_test_server.py, HTTPS with a test
# CA made at start), nothing leaves 127.0.0.1.
#
#   1. warm cache: `xds icon` answered from a fresh cache entry vs `xds mask` on the same local
#      PNG (the cache's own cost; goal ≤ 2 ms), for an exact 58 px entry and for a 1024 px
#      entry masked to 180 px (what caching the masked result would save);
#   2. cold fetch: `xds icon --no-cache` (list + icon over HTTPS) vs `curl -s ICON | convert`
#      (the icon alone, ImageMagick resizing to 58 px);
#   3. requests per run, cold and warm, from the server's request log;
#   4. start-up of `xds show FILE` with this binary and, when XDS_BEFORE names a build from
#      before xds linked the HTTP client, with that one (goal ≤ +1 ms).
#
# Environment: XDS (default .build/release/xds), XDS_BEFORE (optional), OUT (.build/bench),
# RUNS (hyperfine runs, default 30).
set -eu
cd "$(dirname "$0")/.."
XDS=${XDS:-$(pwd)/.build/release/xds}
OUT=${OUT:-.build/bench}
RUNS=${RUNS:-30}
PY=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
IM=$(command -v convert-im6.q16 || command -v magick || echo convert)
[ -x "$XDS" ] || { echo "icon bench: $XDS missing; run: swift build -c release --product xds" >&2; exit 66; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/xds-icon-bench.XXXXXX")
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

mkdir -p "$work/root/app" "$work/srv" "$work/home"
cp appInfo.json "$work/root/app/"
cp -r img "$work/root/app/"
printf '{"headers": {"/app/appInfo.json": {"Cache-Control": "max-age=3600"}, "/app/img/icon-58.png": {"Cache-Control": "max-age=3600"}, "/app/img/icon-1024.png": {"Cache-Control": "max-age=3600"}}}' \
  > "$work/routes.json"
# The server exits when its standard input closes: keep a pipe open for it.
: > "$work/requests.jsonl"
mkfifo "$work/stdin"
"$PY" Tests/Support/http_test_server.py --root "$work/root" --work "$work/srv" --routes "$work/routes.json" \
  --log "$work/requests.jsonl" < "$work/stdin" > "$work/ready" 2> "$work/server.err" &
server_pid=$!
exec 9> "$work/stdin"
for _ in $(seq 100); do [ -s "$work/ready" ] && break; sleep 0.1; done
port=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["https"])' "$work/ready")
ca=$work/srv/ca.pem
list=https://127.0.0.1:$port/app/appInfo.json
export SSL_CERT_FILE=$ca HOME=$work/home XDG_CACHE_HOME=$work/home/cache
requests() { wc -l < "$work/requests.jsonl" | tr -d ' '; }

echo "== icon: $XDS, server 127.0.0.1:$port; $(nproc) cores; load$(uptime | sed 's/.*load//')"

# Requests per run.
r0=$(requests)
"$XDS" icon --app-info "$list" --size 58 -o "$work/a.png"
sleep 0.2; r1=$(requests)
"$XDS" icon --app-info "$list" --size 58 -o "$work/a.png"
sleep 0.2; r2=$(requests)
"$XDS" icon --app-info "$list" --size 180 -o "$work/b.png"   # warms the 1024 px entry
sleep 0.2
echo "requests per run: cold $((r1 - r0)), warm $((r2 - r1))" | tee "$OUT/icon-requests.txt"

echo "== 1/3 warm cache vs xds mask on the same local PNG"
hyperfine -N --style basic --warmup 5 --runs "$RUNS" --export-json "$OUT/icon-warm.json" \
  -n "xds icon 58 (warm cache)" "$XDS icon --app-info $list --size 58 -o $work/a.png" \
  -n "xds mask 58 (img/icon-58.png)" "$XDS mask img/icon-58.png --size 58 -o $work/a.png" \
  -n "xds icon 180 (warm cache, 1024 px entry)" "$XDS icon --app-info $list --size 180 -o $work/b.png" \
  -n "xds mask 180 (img/icon-1024.png)" "$XDS mask img/icon-1024.png --size 180 -o $work/b.png"

echo "== 2/3 cold fetch: xds icon --no-cache vs curl | ImageMagick"
hyperfine -N --style basic --warmup 3 --runs "$RUNS" --export-json "$OUT/icon-cold.json" \
  -n "xds icon 58 --no-cache (list + icon)" "$XDS icon --app-info $list --size 58 --no-cache -o $work/c.png" \
  -n "curl icon-58 | convert" "sh -c 'curl -s --cacert $ca https://127.0.0.1:$port/app/img/icon-58.png | $IM - -resize 58x58 png:$work/d.png'" \
  -n "curl icon-1024 | convert -resize 58" "sh -c 'curl -s --cacert $ca https://127.0.0.1:$port/app/img/icon-1024.png | $IM - -resize 58x58 png:$work/e.png'"

echo "== 3/3 start-up: xds show FILE"
printf 'x' > "$work/f.txt"
"$XDS" set "$work/f.txt" --id com.example.app --name Example >/dev/null
set -- -n "xds show (this build)" "$XDS show $work/f.txt"
if [ -n "${XDS_BEFORE:-}" ]; then set -- "$@" -n "xds show (XDS_BEFORE, no HTTP client)" "$XDS_BEFORE show $work/f.txt"; fi
hyperfine -N --style basic --warmup 20 --runs "$((RUNS * 5))" --export-json "$OUT/icon-startup.json" "$@"

"$PY" - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
def medians(name):
    d = json.load(open(f"{out}/{name}"))
    return {r["command"]: r["median"] * 1000 for r in d["results"]}
w, c, s = medians("icon-warm.json"), medians("icon-cold.json"), medians("icon-startup.json")
rows = []
k = list(w)
rows.append(("warm icon 58 − mask 58 (goal ≤ 2 ms)", f"{w[k[0]] - w[k[1]]:+.2f} ms", f"{w[k[0]]:.1f} vs {w[k[1]]:.1f} ms"))
rows.append(("warm icon 180 − mask 180 (1024 px entry)", f"{w[k[2]] - w[k[3]]:+.2f} ms", f"{w[k[2]]:.1f} vs {w[k[3]]:.1f} ms"))
k = list(c)
rows.append(("cold icon / curl|convert (58 px entry)", f"{c[k[0]] / c[k[1]]:.2f}", f"{c[k[0]]:.1f} vs {c[k[1]]:.1f} ms"))
rows.append(("cold icon / curl|convert (1024 px entry)", f"{c[k[0]] / c[k[2]]:.2f}", f"{c[k[0]]:.1f} vs {c[k[2]]:.1f} ms"))
k = list(s)
if len(k) == 2:
    rows.append(("show start-up with − without HTTP client (goal ≤ +1 ms)", f"{s[k[0]] - s[k[1]]:+.2f} ms", f"{s[k[0]]:.2f} vs {s[k[1]]:.2f} ms"))
else:
    rows.append(("show start-up (this build)", f"{s[k[0]]:.2f} ms", "set XDS_BEFORE to compare"))
rows.append(("requests per run", open(f"{out}/icon-requests.txt").read().strip().split(": ", 1)[1], ""))
text = "| xds icon (medians) | figure | detail |\n|---|---|---|\n" + "".join(f"| {a} | {b} | {c} |\n" for a, b, c in rows)
open(f"{out}/icon-summary.md", "w").write(text)
print(text)
EOF
