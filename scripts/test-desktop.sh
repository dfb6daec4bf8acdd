#!/bin/sh
# make test-desktop: the GNOME Files extension (desktop/nautilus/xds_nautilus.py) in a real
# window. Usage: test-desktop.sh XDS (the built binary the extension runs).
#
# A temporary HOME (set before dbus-run-session, so that dconf keeps the column settings there),
# XDG folders inside it, the extension copied to $XDG_DATA_HOME/nautilus-python/extensions only
# (a system copy would be loaded beside it: refused), a folder of marked files, then
# Tests/Desktop/window_test.py inside `dbus-run-session`: Xvfb, gsettings, `nautilus
# --new-window`, the accessibility tree polled until the columns show. Bounded (timeout), and
# every process it started — the services the session bus started included — is ended.
# DESKTOP_SCREENSHOT=FILE.png: where the screenshot goes (default .build/desktop.png).
set -eu
cd "$(dirname "$0")/.."
xds=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
screenshot=${DESKTOP_SCREENSHOT:-.build/desktop.png}
case $screenshot in /*) ;; *) screenshot=$(pwd)/$screenshot ;; esac
for tool in nautilus Xvfb dbus-run-session gsettings import /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "test-desktop: $tool is missing (make setup-desktop)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import pyatspi, gi; gi.require_version("Nautilus", "4.0")' 2>/dev/null ||
    { echo "test-desktop: /usr/bin/python3 lacks pyatspi or the Nautilus 4.0 bindings (make setup-desktop)" >&2; exit 1; }
for copy in /usr/share/nautilus-python/extensions/xds_nautilus.py /usr/local/share/nautilus-python/extensions/xds_nautilus.py; do
    [ ! -e "$copy" ] || { echo "test-desktop: $copy is installed; remove it (make uninstall, dpkg -r xds) so that only the test's copy loads" >&2; exit 1; }
done

work=$(mktemp -d /tmp/xds-desktop.XXXXXX)
marker="XDS_DESKTOP_TEST=$work"
# The processes that carry this run's marker in their environment (what dbus-run-session
# started, and the services its bus activated).
marked() {
    for environ in /proc/[0-9]*/environ; do
        pid=${environ#/proc/}; pid=${pid%/environ}
        [ "$pid" != $$ ] || continue
        if { tr '\0' '\n' < "$environ"; } 2>/dev/null | grep -qxF "$marker"; then echo "$pid"; fi
    done
}
# Ends them (TERM, then KILL after 10 s), then removes the folder.
alive() { # the given pids that still exist and are not zombies
    for pid in "$@"; do
        state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null) || continue
        [ -n "$state" ] && [ "$state" != Z ] && echo "$pid"
    done
    return 0
}
cleanup() {
    pids=$(marked)
    [ -z "$pids" ] || kill -TERM $pids 2>/dev/null || true
    tries=0
    while [ -n "$pids" ] && [ $tries -lt 100 ]; do
        sleep 0.1; pids=$(alive $pids $(marked) | sort -u); tries=$((tries + 1))
    done
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

export XDS_DESKTOP_TEST="$work"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" \
    XDG_CACHE_HOME="$work/home/.cache" XDG_RUNTIME_DIR="$work/run" TZ=UTC LANG=C.UTF-8 LC_ALL=C.UTF-8 \
    XDS_NAUTILUS_XDS="$xds" XDS_NAUTILUS_DEBUG=1
unset DISPLAY WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS AT_SPI_BUS_ADDRESS 2>/dev/null || true
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME/nautilus-python/extensions" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
cp desktop/nautilus/xds_nautilus.py "$XDG_DATA_HOME/nautilus-python/extensions/"

folder="$work/Downloads"
mkdir -p "$folder"
echo "# Report" > "$folder/Report.md"
echo "setup" > "$folder/setup.bin"
echo "notes" > "$folder/notes.txt"
"$xds" set "$folder/Report.md" --id com.appliedphasor.working-copy --name "Working Copy" \
    --app-info-url https://apps.example.invalid/appInfo.json >/dev/null
# Report.md's app icon as the extension installs it after Fetch App Icon (no network here): the
# repository's icon masked at 16 px, scales 1 and 2, named from the appInfoURL's hash.
hash=$(printf %s https://apps.example.invalid/appInfo.json | sha256sum | cut -c1-16)
for scale in 1 2; do
    suffix=; if [ $scale = 2 ]; then suffix=@2; fi
    emblems="$XDG_DATA_HOME/icons/hicolor/16x16$suffix/emblems"
    mkdir -p "$emblems"
    "$xds" mask img/icon-58.png --size 16 --scale $scale -o "$emblems/emblem-xds-$hash.png"
done
setfattr -n user.xdg.origin.url -v 'https://alice:s3cret@dl.example.com/setup.bin?token=SECRETTOKEN' "$folder/setup.bin"
setfattr -n user.com.apple.quarantine -v '0083;5fad2a4e;Safari;F643CD5F-6071-46AB-83AB-390BA944DEC5' "$folder/setup.bin"

mkdir -p "$(dirname "$screenshot")"
status=0
# The session's chatter (dbus-daemon, portals, tracker) goes to a log, shown when the test fails.
timeout -k 10 150 dbus-run-session -- /usr/bin/python3 Tests/Desktop/window_test.py "$folder" "$screenshot" \
    2> "$work/session.log" || status=$?
# The extension was loaded once, from the test's copy.
loaded=$(grep -c '^xds-nautilus [0-9.]* loaded ' "$HOME/nautilus.log" || true)
if [ $status -eq 0 ] && { [ "$loaded" != 1 ] || ! grep -q "^xds-nautilus [0-9.]* loaded $XDG_DATA_HOME/nautilus-python/extensions/xds_nautilus.py" "$HOME/nautilus.log"; }; then
    echo "test-desktop: FAILED: the extension was loaded $loaded times, or not from \$XDG_DATA_HOME:"
    grep '^xds-nautilus [0-9.]* loaded ' "$HOME/nautilus.log" || true
    status=1
fi
[ $status -eq 0 ] || { echo "test-desktop: the session's standard error, last lines:"; tail -40 "$work/session.log"; }
cleanup
trap - EXIT INT TERM
if [ $status -eq 0 ]; then
    echo "desktop: 1 passed, 0 failed"
else
    echo "desktop: 0 passed, 1 failed (status $status)"
fi
exit $status
