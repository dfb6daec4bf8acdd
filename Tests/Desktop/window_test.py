"""make test-desktop, inside `dbus-run-session` (scripts/test-desktop.sh): GNOME Files with the
xds extension in a virtual X server, its list view read back through the accessibility bus.

Usage: window_test.py FOLDER SCREENSHOT.png. Starts Xvfb, switches the list view and the
extension's columns on with gsettings (dconf, in the temporary HOME), opens FOLDER with
`nautilus --new-window`, then polls the accessibility tree (pyatspi; at most 60 s, a poll every
0.5 s, never a fixed wait) until the labelled files show the source app, the download URL
without its password and token, and the download time; then saves a screenshot of the screen.
Everything it started is ended on the way out. Exit 0 when the window showed it all.
"""
import os
import signal
import subprocess
import sys
import time

FOLDER, SCREENSHOT = sys.argv[1], sys.argv[2]
EXPECTED = ["Working Copy", "https://***@dl.example.com/setup.bin", "2020-11-12 12:27"]
FORBIDDEN = ["s3cret", "SECRETTOKEN"]
POLL_SECONDS = int(os.environ.get("DESKTOP_POLL_SECONDS", "60"))
started = []


def say(text):
    print("test-desktop: " + text, flush=True)


def start(command, **kwargs):
    process = subprocess.Popen(command, **kwargs)
    started.append(process)
    return process


def stop_all():
    for process in reversed(started):
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def start_xvfb():
    read, write = os.pipe()
    start(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
          pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    number = b""
    with os.fdopen(read, "rb") as pipe:
        number = pipe.readline().strip()  # Xvfb writes the display number when it is ready
    if not number:
        raise SystemExit("test-desktop: Xvfb did not start")
    os.environ["DISPLAY"] = ":" + number.decode()
    say("Xvfb on " + os.environ["DISPLAY"])


def gsettings(schema, key, value):
    subprocess.run(["gsettings", "set", schema, key, value], check=True, timeout=30)


def texts(node, found, budget):
    """Every accessible name and text under `node` (at most `budget[0]` nodes)."""
    if node is None or budget[0] <= 0:
        return
    budget[0] -= 1
    try:
        if node.name:
            found.append(node.name)
        try:
            text = node.queryText()
            found.append(text.getText(0, -1))
        except NotImplementedError:
            pass
        except Exception:  # noqa: BLE001: a node that went away while it was read
            pass
        for index in range(node.childCount):
            texts(node.getChildAtIndex(index), found, budget)
    except Exception:  # noqa: BLE001
        return


def window_texts():
    import pyatspi
    desktop = pyatspi.Registry.getDesktop(0)
    found = []
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is not None and app.name and "nautilus" in app.name.lower():
            texts(app, found, [50_000])
    return found


def main():
    start_xvfb()
    os.environ["GDK_BACKEND"] = "x11"
    os.environ["GTK_A11Y"] = "atspi"
    os.environ["NO_AT_BRIDGE"] = "0"
    gsettings("org.gnome.desktop.interface", "toolkit-accessibility", "true")
    gsettings("org.gnome.nautilus.preferences", "default-folder-viewer", "'list-view'")
    gsettings("org.gnome.nautilus.list-view", "default-visible-columns",
              "['name', 'size', 'xds_source_app', 'xds_downloaded_from', 'xds_downloaded']")
    gsettings("org.gnome.nautilus.window-state", "initial-size", "(1180, 400)")
    gsettings("org.gnome.nautilus.list-view", "default-column-order",
              "['name', 'xds_source_app', 'xds_downloaded_from', 'xds_downloaded', 'size']")
    log = open(os.path.join(os.environ["HOME"], "nautilus.log"), "w")
    start(["nautilus", "--new-window", FOLDER], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + POLL_SECONDS
    seen = []
    while time.monotonic() < deadline:
        seen = window_texts()
        joined = "\n".join(seen)
        leaked = [secret for secret in FORBIDDEN if secret in joined]
        if leaked:
            say("FAILED: the window shows " + ", ".join(leaked))
            return 1
        if all(any(expected == text for text in seen) for expected in EXPECTED):
            say("the window shows " + "; ".join(EXPECTED))
            # The screen without the empty (black) rest of it.
            subprocess.run(["import", "-window", "root", "-trim", "+repage", SCREENSHOT], check=False, timeout=60)
            if os.path.exists(SCREENSHOT):
                say("screenshot: " + SCREENSHOT)
            return 0
        time.sleep(0.5)
    say("FAILED: after %d s the window does not show %s" % (POLL_SECONDS, [e for e in EXPECTED if e not in seen]))
    say("accessible texts seen: %r" % sorted(set(t for t in seen if t))[:80])
    log.flush()
    with open(log.name) as text:
        say("nautilus said:\n" + text.read()[-3000:])
    return 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        status = main()
    finally:
        stop_all()
    sys.exit(status)
